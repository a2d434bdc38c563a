import { randomUUID } from 'node:crypto';
import { hashParams } from '../canonical-json.js';
import { GuardConfigError } from '../errors.js';
import type { Guard, GuardFacts, GuardMode, GuardRequest, TraceEntry } from '../guard.js';
import type { AuditRecord, AuditSink, Clock } from '../ports.js';

/** Options of {@link auditGuard}. */
export interface AuditGuardOptions {
  readonly sink: AuditSink;
  readonly clock: Clock;
  /**
   * Write no record of its own for the allowed decision: the run's first settled record (its outcome,
   * or `accepted` for a deferred run) is the decision's record as well — it takes the decision's id and
   * carries every guard's decision in its trace. One audit row per run instead of two. For callers that
   * run the handler and settle in one transaction, or whose handler changes nothing (a crash then loses
   * nothing that a decision record written before the handler would have answered for).
   */
  readonly deferDecision?: boolean;
}

/**
 * `audit`: in the check phase it appends the allowed decision (with the trace so far) before the
 * handler runs, and adds `decisionAuditId`. In the settle phase it appends the final outcome of every
 * request — denials, challenges, faults, simulations and results — with the full trace, and returns
 * that record's id as the response's `audit_id`. A failing sink is a fault: the chain fails closed.
 */
export function auditGuard(options: AuditGuardOptions): Guard {
  if (typeof options?.sink?.append !== 'function')
    throw new GuardConfigError('auditGuard needs sink: AuditSink.');
  if (typeof options.clock?.now !== 'function') throw new GuardConfigError('auditGuard needs a clock.');
  const { sink, clock } = options;

  return {
    name: 'audit',
    async check({ request, facts, mode, trace, unit }) {
      if (options.deferDecision) {
        return { outcome: 'pass', facts: { decisionAuditId: randomUUID(), deferredDecision: true } };
      }
      const record = buildAuditRecord({
        request,
        facts,
        mode,
        occurredAt: clock.now(),
        outcome: 'allowed',
        trace,
      });
      const decisionAuditId = await sink.append(record, unit);
      return { outcome: 'pass', facts: { decisionAuditId } };
    },
    async settle(context) {
      const record = buildAuditRecord({
        request: context.request,
        facts: context.facts,
        mode: context.mode,
        occurredAt: clock.now(),
        outcome: context.outcome,
        reasonCode: context.code,
        trace: context.trace,
        chargedCredits: context.settled.chargedCredits,
        approvalId: context.approvalId,
      });
      // A deferred decision is recorded by this record: it takes the decision's id and points at no other.
      const own =
        context.facts.deferredDecision === true
          ? { ...record, audit_id: context.facts.decisionAuditId ?? randomUUID(), decision_audit_id: null }
          : record;
      if (context.returnWrites) {
        // The caller appends it (ExecuteOptions.returnWrites): the id chosen here, as a sink must keep it.
        const outcome = { ...own, audit_id: own.audit_id ?? randomUUID() };
        return { auditId: outcome.audit_id, auditRecords: [outcome] };
      }
      return { auditId: await sink.append(own, context.unit) };
    },
  };
}

/** Builds an audit record from what the chain knows. Never includes the key, params or tokens. */
export function buildAuditRecord(input: {
  readonly request: GuardRequest;
  readonly facts: GuardFacts;
  readonly mode: GuardMode;
  readonly occurredAt: Date;
  readonly outcome: AuditRecord['outcome'];
  readonly reasonCode?: AuditRecord['reason_code'] | undefined;
  readonly trace: readonly TraceEntry[];
  readonly chargedCredits?: string | undefined;
  readonly approvalId?: string | undefined;
}): AuditRecord {
  const { request, facts } = input;
  const principal = facts.principal;
  return {
    occurred_at: input.occurredAt.toISOString(),
    request_id: request.requestId ?? null,
    actor_type: principal ? 'installation' : 'anonymous',
    actor_id: principal?.installation_id ?? null,
    api_key_prefix: principal?.key_prefix ?? null,
    organization_id: principal?.organization_id ?? null,
    action: input.mode === 'dry_run' ? 'capability.dry_run' : 'capability.invoke',
    target_type: 'capability',
    target_id: request.capability.id,
    capability_version: request.capability.version,
    params_hash: facts.paramsHash ?? safeParamsHash(request.params),
    outcome: input.outcome,
    reason_code: input.reasonCode ?? null,
    idempotency_key: request.idempotencyKey ?? null,
    source_ip: request.sourceIp ?? null,
    user_agent: request.userAgent ?? null,
    transport: request.transport ?? null,
    approval_id: input.approvalId ?? facts.approvalId ?? null,
    decision_audit_id: facts.decisionAuditId ?? null,
    charged_credits: input.chargedCredits ?? null,
    trace: input.trace,
  };
}

/** Params that are not plain JSON (only possible for embedders) are recorded without a hash. */
function safeParamsHash(params: unknown): string | null {
  try {
    return hashParams(params);
  } catch {
    return null;
  }
}
