// Pins the canonical guard order and the runner's contract: build-time validation, first non-pass
// stops, throws fail closed, every decision is traced, settle audits and charges once.
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

describe('running a chain', () => {
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
    const run = await chain.run(input);
    expect(run.outcome).toBe('pass');
    expect(contexts.map((context) => context.facts)).toEqual([{}, { paramsHash: 'h1' }]);
    expect(contexts[1]?.trace).toMatchObject([{ guard: 'installation_key', outcome: 'pass' }]);
    expect(run.context.facts).toEqual({ paramsHash: 'h1', approvalRequired: false });
  });

  it('stops at the first denial and records every decision in the trace', async () => {
    let egressRan = false;
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
        name: 'egress',
        check: () => {
          egressRan = true;
          return { outcome: 'pass' };
        },
      }),
    ]);
    const run = await chain.run(input);
    expect(run).toMatchObject({ outcome: 'deny', guard: 'scopes', decision: { code: 'scope_missing' } });
    expect(run.trace.map(({ guard, outcome, code }) => ({ guard, outcome, code }))).toEqual([
      { guard: 'installation_key', outcome: 'pass', code: undefined },
      { guard: 'scopes', outcome: 'deny', code: 'scope_missing' },
    ]);
    expect(run.trace[1]?.duration_ms).toBeGreaterThanOrEqual(20);
    expect(egressRan).toBe(false);
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
    const run = await chain.run(input);
    expect(run).toMatchObject({ outcome: 'fault', guard: 'installation_key', code: 'internal_error' });
    expect(run.outcome === 'fault' && run.error.message).toBe('database down');
    expect(run.trace).toHaveLength(1);
  });

  it('keeps the code of a GuardFault and turns a thrown GuardDenied into a denial', async () => {
    const faulty = createGuardChain([
      defineGuard({
        name: 'policy',
        check: () => Promise.reject(new GuardFault('redis down', { code: 'dependency_unavailable' })),
      }),
    ]);
    expect(await faulty.run(input)).toMatchObject({ outcome: 'fault', code: 'dependency_unavailable' });
    const throwing = createGuardChain([
      defineGuard({
        name: 'policy',
        check: () => {
          throw new GuardDenied({ code: 'rate_limited', message: 'slow down', retryAfterSeconds: 3 });
        },
      }),
    ]);
    expect(await throwing.run(input)).toMatchObject({
      outcome: 'deny',
      decision: { code: 'rate_limited', retryAfterSeconds: 3 },
    });
    const broken = createGuardChain([
      defineGuard({ name: 'policy', check: () => ({ outcome: 'maybe' }) as never }),
    ]);
    expect(await broken.run(input)).toMatchObject({ outcome: 'fault', code: 'internal_error' });
  });

  it('stops a dry run after policy and refuses to dry-run further', async () => {
    const ran: string[] = [];
    const recording = (name: GuardName): Guard =>
      defineGuard({
        name,
        check: ({ mode }) => {
          ran.push(`${name}:${mode}`);
          return { outcome: 'pass' };
        },
      });
    const chain = createGuardChain(guardOrder.map(recording));
    const run = await chain.run(input, { mode: 'dry_run' });
    expect(run.outcome).toBe('pass');
    expect(ran).toEqual(guardOrder.slice(0, 6).map((name) => `${name}:dry_run`));
    await expect(chain.run(input, { mode: 'dry_run', until: 'billing' })).rejects.toThrow(GuardConfigError);
  });

  it('runs until a guard, then resumes after it with one trace', async () => {
    const chain = createGuardChain(guardOrder.map(passing));
    const first = await chain.run(input, { until: 'schema' });
    expect(first.trace.map((entry) => entry.guard)).toEqual(guardOrder.slice(0, 5));
    const rest = await chain.resume(first);
    expect(rest.trace.map((entry) => entry.guard)).toEqual(guardOrder);
    await expect(chain.resume(first)).rejects.toThrow('only once');
    await expect(chain.settle(first, { status: 'succeeded' })).rejects.toThrow('resumed');
    await expect(chain.resume(rest)).resolves.toMatchObject({ outcome: 'pass' });
    const denied = await createGuardChain([
      defineGuard({
        name: 'scopes',
        check: () => ({ outcome: 'deny', code: 'scope_missing', message: 'no' }),
      }),
    ]).run(input);
    await expect(chain.resume(denied)).rejects.toThrow(GuardConfigError);
  });

  it('snapshots a passed run without credentials and restores it in another chain, to resume and settle', async () => {
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
          }),
        ),
      );
    const original = build();
    const first = await original.run(
      { ...input, authorization: 'Bearer agw_ak_secret', approvalToken: 'agw_ap_secret' },
      { until: 'billing' },
    );
    const stored = JSON.stringify(original.snapshot(first));
    expect(stored).not.toContain('secret');
    seen.length = 0;
    const later = build();
    const restored = later.restore(JSON.parse(stored));
    const rest = await later.resume(restored);
    expect(seen).toEqual(['egress']);
    expect(rest.context.facts.paramsHash).toBe('after-egress');
    expect(rest.trace.map((entry) => entry.guard)).toEqual(guardOrder);
    await expect(later.settle(rest, { status: 'succeeded' })).resolves.toMatchObject({
      outcome: 'succeeded',
    });
    // Settling does not consume the run: its snapshot still names the last guard that ran.
    expect(later.snapshot(rest)).toMatchObject({ after: 'egress' });
    const denied = await createGuardChain([
      defineGuard({
        name: 'scopes',
        check: () => ({ outcome: 'deny', code: 'scope_missing', message: 'no' }),
      }),
    ]).run(input);
    expect(() => later.snapshot(denied)).toThrow(GuardConfigError);
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
    const run = await chain.run(input);
    expect(run.outcome).toBe('pass');
    expect(run.trace).toMatchObject([
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
            `audit:${context.outcome}:${context.settled.chargedCredits ?? '-'}:${context.trace.length}`,
          );
          return { auditId: 'audit-1' };
        },
      }),
      defineGuard({
        name: 'billing',
        check: () => ({ outcome: 'pass' }),
        settle: (context) => {
          calls.push(`billing:${context.outcome}`);
          return context.outcome === 'succeeded' ? { chargedCredits: '0.5' } : undefined;
        },
      }),
    ];
    return { chain: createGuardChain(guards), calls };
  }

  it('unwinds in reverse order so audit records the charge, and returns the audit_id', async () => {
    const { chain, calls } = settleRecorder();
    const run = await chain.run(input);
    const settlement = await chain.settle(run, { status: 'succeeded' });
    expect(calls).toEqual(['billing:succeeded', 'audit:succeeded:0.5:4']);
    expect(settlement).toMatchObject({ outcome: 'succeeded', auditId: 'audit-1', chargedCredits: '0.5' });
    expect(settlement.trace.map((entry) => `${entry.phase}:${entry.guard}`)).toEqual([
      'check:scopes',
      'check:audit',
      'check:billing',
      'settle:billing',
      'settle:audit',
    ]);
  });

  it('audits a denial with its trace and charges nothing', async () => {
    const { chain, calls } = settleRecorder();
    const run = await chain.run(request({ params: { deny: true } }));
    const settlement = await chain.settle(run);
    expect(calls).toEqual(['billing:denied', 'audit:denied:-:2']);
    expect(settlement).toMatchObject({ outcome: 'denied', code: 'scope_missing', auditId: 'audit-1' });
    expect(settlement.chargedCredits).toBeUndefined();
  });

  it('settles each run once and needs the execution of a passed invoke', async () => {
    const { chain } = settleRecorder();
    const run = await chain.run(input);
    await expect(chain.settle(run)).rejects.toThrow('execution');
    await chain.settle(run, { status: 'failed', code: 'internal_error' });
    await expect(chain.settle(run, { status: 'succeeded' })).rejects.toThrow('already settled');
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
    const run = await chain.run(input);
    const settling = chain.settle(run, { status: 'succeeded' });
    await expect(settling).rejects.toBeInstanceOf(SettleFault);
    await expect(settling).rejects.toMatchObject({
      code: 'dependency_unavailable',
      settlement: { outcome: 'failed', code: 'dependency_unavailable', auditId: 'a' },
    });
    expect(audited).toEqual(['failed:dependency_unavailable']);
  });
});
