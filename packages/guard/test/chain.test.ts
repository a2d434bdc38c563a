// Pins the canonical guard order and the runner's contract: build-time validation, first non-pass
// stops, throws fail closed, every decision is traced, each run settles (audits, charges) exactly once.
import { describe, expect, it } from 'vitest';
import {
  createGuardChain,
  defineGuard,
  type Guard,
  GuardConfigError,
  type GuardContext,
  GuardDenied,
  GuardFault,
  type GuardName,
  type GuardRequest,
  guardOrder,
  SettleFault,
} from '../src/index.js';
import { request } from './fixtures.js';

const passing = (name: GuardName): Guard => defineGuard({ name, check: () => ({ outcome: 'pass' }) });

describe('guard order', () => {
  it('is pinned: reordering security checks is a breaking change', () => {
    expect(guardOrder).toEqual([
      'installation_key',
      'required_otps',
      'operator_approval',
      'scopes',
      'schema',
      'policy',
      'audit',
      'billing',
      'egress',
    ]);
  });

  it('is enforced when the chain is built', () => {
    expect(() => createGuardChain([passing('scopes'), passing('installation_key')])).toThrow(
      GuardConfigError,
    );
    expect(() => createGuardChain([passing('scopes'), passing('scopes')])).toThrow('twice');
    expect(() => createGuardChain([passing('firewall' as GuardName)])).toThrow('Unknown guard');
    expect(() => createGuardChain([{ name: 'scopes' } as Guard])).toThrow('check');
    expect(() => createGuardChain([passing('scopes')], { shadow: ['scopes'] })).toThrow('shadow');
    expect(createGuardChain(guardOrder.map(passing)).names).toEqual(guardOrder);
  });
});

describe('admitting a request', () => {
  const input: GuardRequest = request();

  it('merges facts into a fresh context and never mutates the previous one', async () => {
    const contexts: GuardContext[] = [];
    const chain = createGuardChain([
      defineGuard({
        name: 'installation_key',
        check: (context) => {
          contexts.push(context);
          return { outcome: 'pass', facts: { paramsHash: 'h1' } };
        },
      }),
      defineGuard({
        name: 'scopes',
        check: (context) => {
          contexts.push(context);
          return { outcome: 'pass', facts: { approvalRequired: false } };
        },
      }),
    ]);
    const admission = await chain.admit(input);
    expect(admission.outcome).toBe('admitted');
    expect(contexts.map((context) => context.facts)).toEqual([{}, { paramsHash: 'h1' }]);
    expect(contexts[1]?.trace).toMatchObject([{ guard: 'installation_key', outcome: 'pass' }]);
    expect(admission.facts).toEqual({ paramsHash: 'h1', approvalRequired: false });
  });

  it('stops at the first denial and records every decision in the trace', async () => {
    let schemaRan = false;
    const chain = createGuardChain([
      passing('installation_key'),
      defineGuard({
        name: 'scopes',
        // Slow on purpose: the trace must show the time this guard took.
        check: async () => {
          await new Promise((resolve) => setTimeout(resolve, 25));
          return { outcome: 'deny', code: 'scope_missing', message: 'no' };
        },
      }),
      defineGuard({
        name: 'schema',
        check: () => {
          schemaRan = true;
          return { outcome: 'pass' };
        },
      }),
    ]);
    const refusal = await chain.admit(input);
    expect(refusal).toMatchObject({ outcome: 'deny', guard: 'scopes', decision: { code: 'scope_missing' } });
    expect(refusal.trace.map(({ guard, outcome, code }) => ({ guard, outcome, code }))).toEqual([
      { guard: 'installation_key', outcome: 'pass', code: undefined },
      { guard: 'scopes', outcome: 'deny', code: 'scope_missing' },
    ]);
    expect(refusal.trace[1]?.duration_ms).toBeGreaterThanOrEqual(20);
    expect(schemaRan).toBe(false);
    // Settled already: nothing on it can run or settle again.
    expect(refusal).toMatchObject({ settlement: { outcome: 'denied', code: 'scope_missing' } });
    expect('execute' in refusal).toBe(false);
  });

  it('fails closed: a throwing guard is a fault, never a pass', async () => {
    const chain = createGuardChain([
      defineGuard({
        name: 'installation_key',
        check: () => {
          throw new Error('database down');
        },
      }),
      passing('scopes'),
    ]);
    const refusal = await chain.admit(input);
    expect(refusal).toMatchObject({ outcome: 'fault', guard: 'installation_key', code: 'internal_error' });
    expect(refusal.outcome === 'fault' && refusal.error.message).toBe('database down');
    expect(refusal.trace).toHaveLength(1);
  });

  it('keeps the code of a GuardFault and turns a thrown GuardDenied into a denial', async () => {
    const faulty = createGuardChain([
      defineGuard({
        name: 'policy',
        check: () => Promise.reject(new GuardFault('redis down', { code: 'dependency_unavailable' })),
      }),
    ]);
    expect(await faulty.admit(input)).toMatchObject({ outcome: 'fault', code: 'dependency_unavailable' });
    const throwing = createGuardChain([
      defineGuard({
        name: 'policy',
        check: () => {
          throw new GuardDenied({ code: 'rate_limited', message: 'slow down', retryAfterSeconds: 3 });
        },
      }),
    ]);
    expect(await throwing.admit(input)).toMatchObject({
      outcome: 'deny',
      decision: { code: 'rate_limited', retryAfterSeconds: 3 },
    });
    const broken = createGuardChain([
      defineGuard({ name: 'policy', check: () => ({ outcome: 'maybe' }) as never }),
    ]);
    expect(await broken.admit(input)).toMatchObject({ outcome: 'fault', code: 'internal_error' });
  });

  it('decides a synchronous guard without awaiting it, and still awaits any thenable a guard returns', async () => {
    const thenable = {
      // biome-ignore lint/suspicious/noThenProperty: the point is a thenable that is not a native Promise
      then: (resolve: (decision: { outcome: 'deny'; code: 'forbidden'; message: string }) => void) =>
        resolve({ outcome: 'deny', code: 'forbidden', message: 'not now' }),
    };
    const chain = createGuardChain([
      passing('scopes'),
      defineGuard({ name: 'policy', check: () => thenable as never }),
    ]);
    const refusal = await chain.admit(input);
    expect(refusal).toMatchObject({ outcome: 'deny', guard: 'policy', decision: { code: 'forbidden' } });
    expect(refusal.trace.map((entry) => `${entry.guard}:${entry.outcome}`)).toEqual([
      'scopes:pass',
      'policy:deny',
    ]);
  });

  it('stops a dry run after policy, in dry_run mode, and settles it as simulated', async () => {
    const ran: string[] = [];
    const recording = (name: GuardName): Guard =>
      defineGuard({
        name,
        check: ({ mode }) => {
          ran.push(`${name}:${mode}`);
          return { outcome: 'pass' };
        },
        settle: ({ mode, outcome }) => {
          ran.push(`settle:${name}:${mode}:${outcome}`);
          return undefined;
        },
      });
    const chain = createGuardChain(guardOrder.map(recording));
    const simulated = await chain.dryRun(input);
    expect(simulated).toMatchObject({ outcome: 'simulated', settlement: { outcome: 'simulated' } });
    expect(ran.filter((entry) => !entry.startsWith('settle:'))).toEqual(
      guardOrder.slice(0, 6).map((name) => `${name}:dry_run`),
    );
    expect(ran).toContain('settle:audit:dry_run:simulated');
  });

  it('admits through policy, then executes audit, billing and egress with the handler, in one trace', async () => {
    const ran: string[] = [];
    const chain = createGuardChain(
      guardOrder.map((name) =>
        defineGuard({
          name,
          check: () => {
            ran.push(name);
            return { outcome: 'pass' };
          },
        }),
      ),
    );
    const admitted = await chain.admit(input);
    if (admitted.outcome !== 'admitted') throw new Error('expected an admitted run');
    expect(ran).toEqual(guardOrder.slice(0, 6));
    expect(admitted.trace.map((entry) => entry.guard)).toEqual(guardOrder.slice(0, 6));
    const executed = await admitted.execute(() => {
      ran.push('handler');
      return 42;
    });
    expect(ran).toEqual([...guardOrder, 'handler']);
    expect(executed).toMatchObject({ outcome: 'succeeded', value: 42, settlement: { outcome: 'succeeded' } });
    expect(executed.settlement.trace.map((entry) => entry.guard)).toEqual(guardOrder);
  });

  it('settles an admitted run once: execute, defer and fail each claim it', async () => {
    const chain = createGuardChain(guardOrder.map(passing));
    const admitted = await chain.admit(input);
    if (admitted.outcome !== 'admitted') throw new Error('expected an admitted run');
    await admitted.execute(() => 'once');
    await expect(admitted.execute(() => 'twice')).rejects.toThrow(GuardConfigError);
    await expect(admitted.defer()).rejects.toThrow('already');
    await expect(admitted.fail('internal_error')).rejects.toThrow('already');
    const failed = await chain.admit(input);
    if (failed.outcome !== 'admitted') throw new Error('expected an admitted run');
    await expect(failed.fail('capability_not_found')).resolves.toMatchObject({
      outcome: 'failed',
      code: 'capability_not_found',
    });
    await expect(failed.execute(() => 'after failing')).rejects.toThrow('already');
  });

  it('defers a run without credentials and restores it in another chain, to execute once', async () => {
    const seen: string[] = [];
    const build = () =>
      createGuardChain(
        guardOrder.map((name) =>
          defineGuard({
            name,
            check: ({ facts }) => {
              seen.push(name);
              return { outcome: 'pass', facts: { ...facts, paramsHash: `after-${name}` } };
            },
            ...(name === 'audit' ? { settle: ({ outcome }) => ({ auditId: `audit-${outcome}` }) } : {}),
          }),
        ),
      );
    const original = build();
    const admitted = await original.admit({
      ...input,
      authorization: 'Bearer agw_ak_secret',
      approvalToken: 'agw_ap_secret',
    });
    if (admitted.outcome !== 'admitted') throw new Error('expected an admitted run');
    const deferral = await admitted.defer();
    if (deferral.outcome !== 'accepted') throw new Error('expected an accepted run');
    expect(seen).toEqual(guardOrder.slice(0, 8));
    expect(deferral.settlement).toMatchObject({ outcome: 'accepted', auditId: 'audit-accepted' });
    const stored = JSON.stringify(deferral.run);
    expect(stored).not.toContain('secret');
    seen.length = 0;
    const later = build();
    const restored = later.restore(JSON.parse(stored));
    expect('defer' in restored).toBe(false);
    let handlerFacts: unknown;
    const executed = await restored.execute(({ facts }) => {
      handlerFacts = facts.paramsHash;
    });
    expect(seen).toEqual(['egress']);
    expect(handlerFacts).toBe('after-egress');
    expect(executed.settlement.trace.map((entry) => `${entry.phase}:${entry.guard}`)).toEqual([
      ...guardOrder.map((name) => `check:${name}`),
      'settle:audit',
    ]);
    expect(executed.settlement).toMatchObject({ outcome: 'succeeded', auditId: 'audit-succeeded' });
    await expect(restored.execute(() => undefined)).rejects.toThrow(GuardConfigError);
    expect(() => later.restore({ ...JSON.parse(stored), after: 'nope' })).toThrow(GuardConfigError);
  });

  it('records but does not enforce a shadowed guard', async () => {
    const chain = createGuardChain(
      [
        defineGuard({
          name: 'billing',
          check: () => ({ outcome: 'deny', code: 'budget_exceeded', message: 'cap' }),
        }),
      ],
      { shadow: ['billing'] },
    );
    const admitted = await chain.admit(input);
    if (admitted.outcome !== 'admitted') throw new Error('expected an admitted run');
    const executed = await admitted.execute(() => 'ran');
    expect(executed).toMatchObject({ outcome: 'succeeded', value: 'ran' });
    expect(executed.settlement.trace).toMatchObject([
      { guard: 'billing', outcome: 'deny', code: 'budget_exceeded', shadow: true },
    ]);
  });
});

describe('settling a run', () => {
  const input = request();

  function settleRecorder() {
    const calls: string[] = [];
    const guards = [
      defineGuard({
        name: 'scopes',
        check: ({ request: { params } }) =>
          (params as { deny?: boolean }).deny
            ? { outcome: 'deny', code: 'scope_missing', message: 'no' }
            : { outcome: 'pass' },
      }),
      defineGuard({
        name: 'audit',
        check: () => ({ outcome: 'pass' }),
        settle: (context) => {
          calls.push(
            `audit:${context.outcome}:${context.code ?? '-'}:${context.settled.chargedCredits ?? '-'}:${context.trace.length}`,
          );
          return { auditId: 'audit-1' };
        },
      }),
      defineGuard({
        name: 'billing',
        check: () => ({ outcome: 'pass' }),
        settle: (context) => {
          calls.push(`billing:${context.outcome}:${context.actualCostCredits ?? '-'}`);
          return context.outcome === 'succeeded'
            ? { chargedCredits: context.actualCostCredits ?? '0.5' }
            : undefined;
        },
      }),
    ];
    const chain = createGuardChain(guards);
    const admit = async (params: unknown = input.params) => {
      const admission = await chain.admit({ ...input, params });
      if (admission.outcome !== 'admitted') throw new Error('expected an admitted run');
      return admission;
    };
    return { chain, calls, admit };
  }

  it('unwinds in reverse order so audit records the charge, and returns the audit_id', async () => {
    const { calls, admit } = settleRecorder();
    const executed = await (await admit()).execute(() => 'done');
    expect(calls).toEqual(['billing:succeeded:-', 'audit:succeeded:-:0.5:4']);
    expect(executed.settlement).toMatchObject({
      outcome: 'succeeded',
      auditId: 'audit-1',
      chargedCredits: '0.5',
    });
    expect(executed.settlement.trace.map((entry) => `${entry.phase}:${entry.guard}`)).toEqual([
      'check:scopes',
      'check:audit',
      'check:billing',
      'settle:billing',
      'settle:audit',
    ]);
  });

  it('hands the cost the handler reports to the settle phase', async () => {
    const { calls, admit } = settleRecorder();
    const executed = await (await admit()).execute(({ reportCost }) => reportCost('0.125'));
    expect(calls[0]).toBe('billing:succeeded:0.125');
    expect(executed.settlement.chargedCredits).toBe('0.125');
  });

  it('audits a denial with its trace and charges nothing', async () => {
    const { chain, calls } = settleRecorder();
    const refusal = await chain.admit(request({ params: { deny: true } }));
    expect(calls).toEqual(['billing:denied:-', 'audit:denied:scope_missing:-:2']);
    expect(refusal.outcome).toBe('deny');
    expect(refusal.outcome === 'deny' && refusal.settlement).toMatchObject({
      outcome: 'denied',
      code: 'scope_missing',
      auditId: 'audit-1',
    });
    expect(refusal.outcome === 'deny' && refusal.settlement.chargedCredits).toBeUndefined();
  });

  it('settles a handler that throws as failed, with the code its classifier gives, and charges nothing', async () => {
    const { calls, admit } = settleRecorder();
    const denied = await (await admit()).execute(() => {
      throw new GuardDenied({ code: 'egress_denied', message: 'not that host' });
    });
    expect(denied).toMatchObject({ outcome: 'failed', failure: { code: 'egress_denied' } });
    const classified = await (await admit()).execute(
      () => {
        throw new TypeError('bug');
      },
      { classify: (thrown) => ({ code: 'conflict' as const, why: String(thrown) }) },
    );
    expect(classified).toMatchObject({
      outcome: 'failed',
      failure: { code: 'conflict', why: 'TypeError: bug' },
      settlement: { outcome: 'failed', code: 'conflict', auditId: 'audit-1' },
    });
    const unexpected = await (await admit()).execute(() => Promise.reject(new Error('boom')));
    expect(unexpected).toMatchObject({ outcome: 'failed', failure: { code: 'internal_error' } });
    expect(calls).toEqual([
      'billing:failed:-',
      'audit:failed:egress_denied:-:4',
      'billing:failed:-',
      'audit:failed:conflict:-:4',
      'billing:failed:-',
      'audit:failed:internal_error:-:4',
    ]);
  });

  it('settles a refusal by audit, billing or egress inside execute, without running the handler', async () => {
    let handlerRan = false;
    const chain = createGuardChain([
      defineGuard({ name: 'audit', check: () => ({ outcome: 'pass' }), settle: () => ({ auditId: 'a' }) }),
      defineGuard({
        name: 'egress',
        check: () => ({ outcome: 'deny', code: 'egress_denied', message: 'no host' }),
      }),
    ]);
    const admitted = await chain.admit(input);
    if (admitted.outcome !== 'admitted') throw new Error('expected an admitted run');
    const executed = await admitted.execute(() => {
      handlerRan = true;
    });
    expect(executed).toMatchObject({
      outcome: 'deny',
      guard: 'egress',
      decision: { code: 'egress_denied' },
      settlement: { outcome: 'denied', code: 'egress_denied', auditId: 'a' },
    });
    expect(handlerRan).toBe(false);
  });

  it('still audits when the charge fails, then rejects so the caller cannot commit', async () => {
    const audited: string[] = [];
    const chain = createGuardChain([
      defineGuard({
        name: 'audit',
        check: () => ({ outcome: 'pass' }),
        settle: ({ outcome, code }) => {
          audited.push(`${outcome}:${code}`);
          return { auditId: 'a' };
        },
      }),
      defineGuard({
        name: 'billing',
        check: () => ({ outcome: 'pass' }),
        settle: () => {
          throw new GuardFault('ledger down', { code: 'dependency_unavailable' });
        },
      }),
    ]);
    const admitted = await chain.admit(input);
    if (admitted.outcome !== 'admitted') throw new Error('expected an admitted run');
    const settling = admitted.execute(() => 'result');
    await expect(settling).rejects.toBeInstanceOf(SettleFault);
    await expect(settling).rejects.toMatchObject({
      code: 'dependency_unavailable',
      settlement: { outcome: 'failed', code: 'dependency_unavailable', auditId: 'a' },
    });
    expect(audited).toEqual(['failed:dependency_unavailable']);
  });
});
