// The operator_approval guard alone, on its pass and deny paths.
import { describe, expect, it } from 'vitest';
import { createMemoryInstallationStore, operatorApprovalGuard } from '../src/index.js';
import { approvedInstallation, context, principal } from './fixtures.js';

function installations(changes: Partial<typeof approvedInstallation> = {}) {
  const store = createMemoryInstallationStore();
  store.set({ ...approvedInstallation, ...changes });
  return store;
}

describe('operator_approval guard', () => {
  const check = (changes: Partial<typeof approvedInstallation>) =>
    operatorApprovalGuard({ installations: installations(changes) }).check(context());

  it('passes an approved installation of an active organization', async () => {
    expect(await check({})).toMatchObject({ outcome: 'pass' });
  });

  it('answers 412 while approval is pending, 403 when blocked, 403 when the organization is inactive', async () => {
    expect(await check({ operator_approval_status: 'pending' })).toMatchObject({
      code: 'precondition_failed',
    });
    expect(await check({ operator_approval_status: 'blocked' })).toMatchObject({
      code: 'installation_blocked',
    });
    expect(await check({ organization_is_active: false })).toMatchObject({ code: 'organization_inactive' });
  });

  it('uses the installation state required_otps already read', async () => {
    const guard = operatorApprovalGuard({ installations: createMemoryInstallationStore() });
    const blocked = { ...approvedInstallation, operator_approval_status: 'blocked' as const };
    expect(await guard.check(context({}, { principal, installation: blocked }))).toMatchObject({
      code: 'installation_blocked',
    });
  });
});
