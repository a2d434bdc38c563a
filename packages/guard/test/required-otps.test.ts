// The required_otps guard alone, on its pass and deny paths.
import { describe, expect, it } from 'vitest';
import { createMemoryInstallationStore, requiredOtpsGuard } from '../src/index.js';
import { approvedInstallation, context, installationId } from './fixtures.js';

function installations(changes: Partial<typeof approvedInstallation> = {}) {
  const store = createMemoryInstallationStore();
  store.set({ ...approvedInstallation, ...changes });
  return store;
}

describe('required_otps guard', () => {
  it('passes a fully verified installation and hands its state on', async () => {
    const guard = requiredOtpsGuard({ installations: installations() });
    expect(await guard.check(context())).toEqual({
      outcome: 'pass',
      facts: { installation: approvedInstallation },
    });
  });

  it('answers 412 naming the owner code when it was not claimed', async () => {
    const guard = requiredOtpsGuard({ installations: installations({ owner_verified_at: null }) });
    const decision = await guard.check(context());
    expect(decision).toMatchObject({
      outcome: 'deny',
      code: 'precondition_failed',
      details: [{ missing: 'owner_otp', endpoint: '/owner-otp/claim' }],
    });
    expect(decision.outcome === 'deny' && decision.hint).toContain('/owner-otp/claim');
  });

  it('requires the agent mailbox code only when an agent_email is set', async () => {
    const unverified = requiredOtpsGuard({ installations: installations({ agent_email_verified_at: null }) });
    expect(await unverified.check(context())).toMatchObject({
      code: 'precondition_failed',
      details: [{ missing: 'agent_otp', endpoint: '/agent-otp/verify' }],
    });
    const noMailbox = requiredOtpsGuard({
      installations: installations({ agent_email: null, agent_email_verified_at: null }),
    });
    expect(await noMailbox.check(context())).toMatchObject({ outcome: 'pass' });
  });

  it('throws (a fault for the chain) when the installation of a valid key is missing', async () => {
    const guard = requiredOtpsGuard({ installations: createMemoryInstallationStore() });
    await expect(guard.check(context())).rejects.toThrow(installationId);
  });
});
