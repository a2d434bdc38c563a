// execute(fn, { returnWrites: true }): the settle computes the charge and the audit records but writes
// nothing; the caller writes them with its own result (the gateway: in one statement of its transaction).
import { describe, expect, it } from 'vitest';
import { createStandardChain, type GuardRequest } from '../src/index.js';
import { createWorld, organizationId, uploadCapability } from './fixtures.js';

function setup() {
  const world = createWorld();
  const chain = createStandardChain({ ...world, deferAuditDecision: true });
  const request = (overrides: Partial<GuardRequest> = {}): GuardRequest => ({
    authorization: `Bearer ${world.token}`,
    capability: uploadCapability,
    params: { file_name: 'a.pdf', mime_type: 'application/pdf' },
    idempotencyKey: 'idem-0000000000000001',
    ...overrides,
  });
  const admit = async (overrides: Partial<GuardRequest> = {}) => {
    const admission = await chain.admit(request(overrides));
    if (admission.outcome !== 'admitted') throw new Error(`expected an admitted run: ${admission.outcome}`);
    return admission;
  };
  const balance = async () =>
    (await world.wallet.getSnapshot(organizationId, world.clock.now())).balance_credits;
  return { ...world, admit, balance };
}

describe('execute with returnWrites', () => {
  it('returns the charge and both audit records of a success, and writes neither', async () => {
    const { admit, audit, balance } = setup();
    const executed = await (await admit()).execute(() => 'done', { returnWrites: true });
    expect(executed.outcome).toBe('succeeded');
    const { writes, auditId, chargedCredits } = executed.settlement;
    expect(chargedCredits).toBe('0.5');
    expect(writes?.charge).toMatchObject({ organization_id: organizationId, amount_credits: '0.5' });
    // One record: the response's audit_id is its id, and it carries the charge and every decision.
    expect(writes?.audit.map((record) => record.outcome)).toEqual(['succeeded']);
    expect(writes?.audit[0]).toMatchObject({
      audit_id: auditId,
      charged_credits: '0.5',
      decision_audit_id: null,
    });
    expect(writes?.audit[0]?.trace.map((entry) => entry.guard)).toContain('billing');
    expect(audit.records()).toEqual([]);
    expect(await balance()).toBe('10');
  });

  it('returns a failure: its audit records and no charge', async () => {
    const { admit, audit } = setup();
    const executed = await (await admit()).execute(
      () => {
        throw new Error('boom');
      },
      { returnWrites: true },
    );
    expect(executed.outcome).toBe('failed');
    expect(executed.settlement.writes?.charge).toBeUndefined();
    expect(executed.settlement.writes?.audit.map((record) => record.outcome)).toEqual(['failed']);
    expect(audit.records()).toEqual([]);
  });

  it("returns a refusal by billing's check the same way, and the handler never runs", async () => {
    const { admit, audit, wallet } = setup();
    wallet.setPolicy(organizationId, { task_cap_credits: '0.1' });
    let ran = false;
    const executed = await (await admit()).execute(
      () => {
        ran = true;
      },
      { returnWrites: true },
    );
    expect(ran).toBe(false);
    expect(executed).toMatchObject({ outcome: 'deny', guard: 'billing' });
    expect(executed.settlement.writes?.audit.map((record) => record.reason_code)).toEqual([
      'budget_exceeded',
    ]);
    expect(audit.records()).toEqual([]);
  });

  it('writes through the ports as before without the option', async () => {
    const { admit, audit, balance } = setup();
    const executed = await (await admit()).execute(() => 'done');
    expect(executed.settlement.writes).toBeUndefined();
    expect(audit.records().map((record) => record.outcome)).toEqual(['succeeded']);
    expect(await balance()).toBe('9.5');
  });
});
