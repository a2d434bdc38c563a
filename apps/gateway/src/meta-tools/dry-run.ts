import type { CapabilityHandler } from '@agw/capabilities';
import { type DryRunResponse, INTERFACE_VERSION } from '@agw/contracts';
import { answerError } from '../http/error-envelope.js';
import type { MetaToolContext } from '../http/exchange.js';
import { toGuardRequest } from '../invoke/guard-request.js';
import { refusalError } from '../invoke/refusal.js';
import type { InvokeRuntime } from '../invoke/runtime.js';
import { validateBody } from '../onboarding/validate.js';
import type { CatalogVersions } from './catalog.js';
import { resolveCapability } from './describe.js';

/**
 * POST /mcp/dry_run: the guard chain in `dry_run` mode (it stops after `policy`, creates no approval
 * and consumes no rate limit), then one audit record of the simulation — the only row it writes.
 * Params that break the input schema are answered 200 with `valid: false` and the violations (JSON
 * Pointers under `/params`); a refused caller (401, 403, 412) gets the error envelope. Params that pass
 * the schema then go through the handler's own `check` (e.g. an upload's content against its declared
 * type), whose violations are answered the same way, so a dry run refuses what invoke would refuse.
 */
export async function dryRun(
  ctx: MetaToolContext,
  runtime: InvokeRuntime,
  versions: CatalogVersions,
  handlers?: ReadonlyMap<string, CapabilityHandler<never>>,
): Promise<void> {
  const request = validateBody('DryRunRequest', ctx.state.body);
  const contract = resolveCapability(versions, request.id, request.version);
  const run = await runtime.chain.dryRun(toGuardRequest(ctx, contract, request.params));
  const auditId = run.settlement.auditId ?? ctx.state.auditId;
  const base = {
    interface_version: INTERFACE_VERSION,
    capability_id: contract.id,
    resolved_version: contract.version,
    audit_id: auditId,
  };
  if (run.outcome === 'deny' && run.decision.code === 'validation_failed' && run.guard === 'schema') {
    const body: DryRunResponse = {
      ...base,
      valid: false,
      violations: (run.decision.details ?? []).map((detail) => ({ ...detail })),
    };
    ctx.body = body;
    return;
  }
  if (run.outcome === 'deny' || run.outcome === 'fault') {
    if (run.outcome === 'fault') {
      ctx.state.log.error({ err: run.error, guard: run.guard, audit_id: auditId }, 'guard fault');
    }
    answerError(ctx, refusalError(run), auditId);
    return;
  }
  const handler = handlers?.get(`${contract.id}@${contract.version}`);
  const violations = (await handler?.check?.(request.params as never)) ?? [];
  if (violations.length > 0) {
    ctx.body = {
      ...base,
      valid: false,
      violations: violations.map((v) => ({ ...v })),
    } satisfies DryRunResponse;
    return;
  }
  const { facts } = run;
  const body: DryRunResponse = {
    ...base,
    valid: true,
    violations: [],
    would_require_approval: facts.approvalRequired === true,
    ...(facts.approvalReason === undefined ? {} : { approval_reason: facts.approvalReason }),
    estimated_cost: { amount_max: Number(contract.cost_credits), currency: 'credits' },
    effects: contract.mutating
      ? [{ kind: 'state_change', capability_id: contract.id, idempotency_key_required: true }]
      : [],
  };
  ctx.body = body;
}
