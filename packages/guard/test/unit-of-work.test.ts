// The caller's unit of work (`unit` of admit, dryRun, execute, defer, fail) reaches every call of the
// ports a run writes or reads its money through: an embedder finds its transaction there, with no
// ambient state (the gateway passes its per-invoke UnitOfWork this way).
import { describe, expect, it } from 'vitest';
import {
  type ApprovalStore,
  type AuditSink,
  createStandardChain,
  type GuardRequest,
  type WalletStore,
} from '../src/index.js';
import { createWorld, paymentCapability, uploadCapability } from './fixtures.js';

type Call = readonly [port: string, unit: unknown];

/** The world's ports, each call recorded with the unit it was given. */
function setup() {
  const world = createWorld();
  const calls: Call[] = [];
  /** `fn`, recording under `port` the unit each call brings after the port's `arity` arguments. */
  const recorded = <F extends (...args: never[]) => unknown>(port: string, arity: number, fn: F): F =>
    ((...args: unknown[]) => {
      calls.push([port, args[arity]]);
      return (fn as unknown as (...given: unknown[]) => unknown)(...args.slice(0, arity));
    }) as unknown as F;
  const audit: AuditSink = {
    append: recorded('audit.append', 1, world.audit.append),
  };
  const wallet: WalletStore = {
    getSnapshot: recorded('wallet.getSnapshot', 2, world.wallet.getSnapshot),
    charge: recorded('wallet.charge', 1, world.wallet.charge),
  };
  const approvals: ApprovalStore = {
    create: recorded('approvals.create', 1, world.approvals.create),
    findByTokenHash: recorded('approvals.findByTokenHash', 1, world.approvals.findByTokenHash),
    consume: recorded('approvals.consume', 2, world.approvals.consume),
  };
  const chain = createStandardChain({ ...world, audit, wallet, approvals });
  const request = (overrides: Partial<GuardRequest> = {}): GuardRequest => ({
    authorization: `Bearer ${world.token}`,
    capability: uploadCapability,
    params: { file_name: 'a.pdf', mime_type: 'application/pdf' },
    requestId: 'req-1',
    ...overrides,
  });
  const admit = async (unit?: unknown) => {
    const admission = await chain.admit(request(), { unit });
    if (admission.outcome !== 'admitted') throw new Error(`expected an admitted run: ${admission.outcome}`);
    return admission;
  };
  return { world, chain, calls, request, admit };
}

describe('the unit of work', () => {
  it("reaches billing's read and charge and audit's records of an executed run: execute's, not admit's", async () => {
    const { calls, admit } = setup();
    const run = await admit('admission');
    calls.length = 0;
    const executed = await run.execute(() => 'done', { unit: 'transaction' });
    expect(executed.outcome).toBe('succeeded');
    // The decision record, the charge, the outcome record (policy's wallet read served billing's check).
    expect(calls).toEqual([
      ['audit.append', 'transaction'],
      ['wallet.charge', 'transaction'],
      ['audit.append', 'transaction'],
    ]);
  });

  it('reaches the approval store and the audit record of a challenged admission', async () => {
    const { chain, calls, request } = setup();
    const admission = await chain.admit(request({ capability: paymentCapability, params: { amount: 5 } }), {
      unit: 'pool',
    });
    expect(admission.outcome).toBe('challenge');
    expect(calls).toEqual([
      ['wallet.getSnapshot', 'pool'],
      ['approvals.create', 'pool'],
      ['audit.append', 'pool'],
    ]);
  });

  it('reaches the acceptance of a deferred run, then the restored run its own', async () => {
    const { chain, calls, admit } = setup();
    const admitted = await admit();
    calls.length = 0;
    const deferral = await admitted.defer({ unit: 'acceptance' });
    if (deferral.outcome !== 'accepted') throw new Error(`expected accepted: ${deferral.outcome}`);
    expect(calls).toEqual([
      ['audit.append', 'acceptance'],
      ['audit.append', 'acceptance'],
    ]);
    calls.length = 0;
    const json = JSON.parse(JSON.stringify(deferral.run));
    await chain.restore(json).execute(() => 'done', { unit: 'job' });
    expect(calls).toEqual([
      ['wallet.charge', 'job'],
      ['audit.append', 'job'],
    ]);
  });

  it("reaches a failed run's record, and is absent where the caller gave none", async () => {
    const { calls, admit } = setup();
    const failing = await admit();
    calls.length = 0;
    await failing.fail('capability_not_found', { unit: 'job' });
    expect(calls).toEqual([['audit.append', 'job']]);
    calls.length = 0;
    await (await admit()).execute(() => 'done');
    expect(calls.map(([port]) => port)).toEqual([
      'wallet.getSnapshot',
      'audit.append',
      'wallet.charge',
      'audit.append',
    ]);
    expect(calls.every(([, unit]) => unit === undefined)).toBe(true);
  });
});
