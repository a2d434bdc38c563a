import { performance } from 'node:perf_hooks';
import type { ErrorCode } from '@agw/contracts';
import type { CheckedRun } from './checked.js';
import { GuardConfigError, GuardFault, toError } from './errors.js';
import type { Guard, SettleContext, SettleFacts, SettleOutcome, TraceEntry } from './guard.js';
import type { AuditRecord, ChargeRequest } from './ports.js';

/** What became of a passed invoke run, as the settle phase is told. @internal */
export type RunResult =
  /** The handler finished; `actualCostCredits` is the cost it reports (clamped to the estimate). */
  | { readonly status: 'succeeded'; readonly actualCostCredits?: string }
  /** Deferred: a job finishes it later and settles its own (restored) run. */
  | { readonly status: 'accepted' }
  /** The handler failed (or could not run); nothing it did was committed. */
  | { readonly status: 'failed'; readonly code: ErrorCode };

/** The result of the settle phase. */
export interface Settlement {
  readonly outcome: SettleOutcome;
  readonly code?: ErrorCode;
  /** The id of the outcome's audit record: the `audit_id` of the response. */
  readonly auditId?: string;
  /** Credits charged by billing (absent when nothing was charged). */
  readonly chargedCredits?: string;
  /** Check and settle decisions together. */
  readonly trace: readonly TraceEntry[];
  /**
   * Only when the run was executed with `returnWrites`: what the settle hooks did not write, for the
   * caller to write in its own transaction, all or nothing (`chargedCredits` and the outcome record
   * assume the charge is written).
   */
  readonly writes?: SettleWrites;
}

/** What a settle with `returnWrites` leaves to the caller to write. */
export interface SettleWrites {
  /** Billing's charge (absent when nothing is charged). Write it once per `idempotency_scope`. */
  readonly charge?: ChargeRequest;
  /** The audit records, in the order to append them, each with its `audit_id` set. */
  readonly audit: readonly AuditRecord[];
}

/** A settle hook failed. The other hooks still ran; `settlement` tells what was recorded. */
export class SettleFault extends GuardFault {
  override readonly name = 'SettleFault';
  readonly settlement: Settlement;

  constructor(settlement: Settlement, cause: Error) {
    super('A settle hook failed; the result must not be committed.', {
      code: cause instanceof GuardFault ? cause.code : 'internal_error',
      cause,
    });
    this.settlement = settlement;
  }
}

function initialOutcome(
  run: CheckedRun,
  execution: RunResult | undefined,
): { outcome: SettleOutcome; code?: ErrorCode } {
  switch (run.outcome) {
    case 'deny':
      return { outcome: 'denied', code: run.decision.code };
    case 'challenge':
      return { outcome: 'pending_approval' };
    case 'fault':
      return { outcome: 'failed', code: run.code };
    case 'pass':
      if (run.context.mode === 'dry_run') return { outcome: 'simulated' };
      if (execution === undefined) {
        throw new GuardConfigError('Settling a passed invoke needs the execution result of the handler.');
      }
      return execution.status === 'failed'
        ? { outcome: 'failed', code: execution.code }
        : { outcome: execution.status };
  }
}

/**
 * Runs every guard's settle hook in reverse chain order (like middleware unwinding), so billing
 * charges before audit records the outcome with the charge. A failing hook turns the outcome into
 * `failed` for the hooks after it, and the whole settle rejects with a {@link SettleFault}.
 * @internal
 */
export async function settleRun(input: {
  readonly run: CheckedRun;
  readonly execution: RunResult | undefined;
  readonly guards: readonly Guard[];
  /** The hooks return their writes (`Settlement.writes`) instead of writing through their ports. */
  readonly returnWrites?: boolean;
}): Promise<Settlement> {
  const { run, execution } = input;
  const returnWrites = input.returnWrites === true;
  let charge: ChargeRequest | undefined;
  const auditRecords: AuditRecord[] = [];
  let { outcome, code } = initialOutcome(run, execution);
  const trace = [...run.trace];
  let facts: SettleFacts = {};
  let firstFault: Error | undefined;
  const actualCostCredits = execution?.status === 'succeeded' ? execution.actualCostCredits : undefined;
  const approvalId =
    run.outcome === 'challenge' ? run.decision.approval.approval_id : run.context.facts.approvalId;

  for (const guard of [...input.guards].reverse()) {
    if (guard.settle === undefined) continue;
    const context: SettleContext = {
      request: run.context.request,
      facts: { ...run.context.facts },
      mode: run.context.mode,
      outcome,
      trace: [...trace],
      settled: facts,
      ...(code === undefined ? {} : { code }),
      ...(actualCostCredits === undefined ? {} : { actualCostCredits }),
      ...(approvalId === undefined ? {} : { approvalId }),
      ...(returnWrites ? { returnWrites } : {}),
      ...(run.context.unit === undefined ? {} : { unit: run.context.unit }),
    };
    const started = performance.now();
    try {
      const added = await guard.settle(context);
      if (added) {
        const { charge: charged, auditRecords: records, ...rest } = added;
        facts = { ...facts, ...rest };
        if (returnWrites && charged !== undefined) charge = charged;
        if (returnWrites && records !== undefined) auditRecords.push(...records);
      }
      trace.push({ guard: guard.name, phase: 'settle', outcome: 'pass', duration_ms: since(started) });
    } catch (thrown) {
      const error = toError(thrown);
      firstFault ??= error;
      const faultCode = thrown instanceof GuardFault ? thrown.code : 'internal_error';
      trace.push({
        guard: guard.name,
        phase: 'settle',
        outcome: 'fault',
        code: faultCode,
        duration_ms: since(started),
      });
      // A success whose charge or record failed is a failure for everything that unwinds after it.
      if (outcome === 'succeeded' || outcome === 'accepted') {
        outcome = 'failed';
        code = faultCode;
      }
    }
  }

  const settlement: Settlement = {
    outcome,
    trace,
    ...(code === undefined ? {} : { code }),
    ...(facts.auditId === undefined ? {} : { auditId: facts.auditId }),
    ...(facts.chargedCredits === undefined ? {} : { chargedCredits: facts.chargedCredits }),
    ...(returnWrites ? { writes: { ...(charge === undefined ? {} : { charge }), audit: auditRecords } } : {}),
  };
  if (firstFault) throw new SettleFault(settlement, firstFault);
  return settlement;
}

function since(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}
