// The audit guard alone: the allowed decision before the handler, the outcome in settle.
import { describe, expect, it } from 'vitest';
import {
  auditGuard,
  createManualClock,
  createMemoryAuditSink,
  hashParams,
  type TraceEntry,
} from '../src/index.js';
import { context, installationId, organizationId, principal } from './fixtures.js';

describe('audit guard', () => {
  const setup = () => {
    const sink = createMemoryAuditSink();
    const guard = auditGuard({ sink, clock: createManualClock('2026-03-10T12:00:00.000Z') });
    return { sink, guard };
  };

  it('records the allowed decision with actor, capability and params hash, and returns its id', async () => {
    const { sink, guard } = setup();
    const ctx = context({ idempotencyKey: 'key-0123456789abcdef', requestId: 'req-1' });
    const decision = await guard.check(ctx);
    const [record] = sink.records();
    expect(decision).toEqual({ outcome: 'pass', facts: { decisionAuditId: record?.audit_id } });
    expect(record).toMatchObject({
      occurred_at: '2026-03-10T12:00:00.000Z',
      request_id: 'req-1',
      actor_type: 'installation',
      actor_id: installationId,
      api_key_prefix: principal.key_prefix,
      organization_id: organizationId,
      action: 'capability.invoke',
      target_id: 'documents.document.upload',
      capability_version: '1.0.0',
      params_hash: hashParams(ctx.request.params),
      outcome: 'allowed',
      idempotency_key: 'key-0123456789abcdef',
    });
    expect(JSON.stringify(record)).not.toContain('a.pdf');
  });

  it('records the settled outcome with the full trace and the charge, and returns the audit_id', async () => {
    const { sink, guard } = setup();
    const trace = [
      { guard: 'scopes', phase: 'check', outcome: 'deny', code: 'scope_missing', duration_ms: 0.1 },
    ] as const;
    const settled = await guard.settle?.({
      ...context(),
      outcome: 'denied',
      code: 'scope_missing',
      trace,
      settled: { chargedCredits: '0.5' },
    });
    const [record] = sink.records();
    expect(settled).toEqual({ auditId: record?.audit_id });
    expect(record).toMatchObject({
      outcome: 'denied',
      reason_code: 'scope_missing',
      trace,
      charged_credits: '0.5',
    });
  });

  it('lets a failing sink throw so the chain fails closed', async () => {
    const guard = auditGuard({
      sink: { append: () => Promise.reject(new Error('disk full')) },
      clock: createManualClock(),
    });
    await expect(guard.check(context())).rejects.toThrow('disk full');
  });

  it('with deferDecision writes one record at settle: the outcome, under the decision id, with the trace', async () => {
    const sink = createMemoryAuditSink();
    // A sink that writes one record at a time is enough: nothing is batched any more.
    const guard = auditGuard({
      sink: { append: sink.append },
      clock: createManualClock(),
      deferDecision: true,
    });
    const decision = await guard.check(context({ requestId: 'req-2' }));
    expect(sink.records()).toEqual([]);
    expect(decision.outcome).toBe('pass');
    const facts = (decision as { facts: { decisionAuditId: string } }).facts;
    const trace: TraceEntry[] = [{ guard: 'scopes', phase: 'check', outcome: 'pass', duration_ms: 0 }];

    const settled = await guard.settle?.({
      ...context({ requestId: 'req-2' }),
      facts: { ...context().facts, ...facts },
      outcome: 'succeeded',
      trace,
      settled: {},
    });
    expect(sink.records()).toHaveLength(1);
    expect(sink.records()[0]).toMatchObject({
      audit_id: facts.decisionAuditId,
      outcome: 'succeeded',
      request_id: 'req-2',
      decision_audit_id: null,
      trace,
    });
    expect(settled).toEqual({ auditId: facts.decisionAuditId });
  });
});
