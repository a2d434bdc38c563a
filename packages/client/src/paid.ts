import type { CapabilityId } from '@agw/contracts';
import type { GatewayClient } from './client-types.js';
import { BudgetDeniedError, DryRunInvalidError } from './flow-errors.js';
import { newIdempotencyKey } from './options.js';
import type {
  CapabilityInput,
  InvokeOptions,
  TypedCapabilityDescription,
  TypedDryRunResponse,
  TypedInvokeResponse,
} from './typed.js';

/** The budget window `wallet.agent_budget.guard.check` measures against. */
export type BudgetWindow = 'task' | 'hour' | 'day' | 'month';

/** Options of `client.runPaidCapability`. */
export interface PaidRunOptions extends InvokeOptions {
  /** Budget window of the check. Default `task`. */
  window?: BudgetWindow;
}

/** Every answer of the paid sequence. */
export interface PaidRunResult<Id extends CapabilityId> {
  description: TypedCapabilityDescription<Id>;
  dryRun: TypedDryRunResponse<Id>;
  budget: TypedInvokeResponse<'wallet.agent_budget.guard.check'>;
  /** The capability's own invoke answer (`succeeded`, `pending_approval` or `accepted`). */
  invocation: TypedInvokeResponse<Id>;
}

/**
 * Throws DryRunInvalidError with the dry run's violations unless it is valid.
 * @internal Shared by `runPaidCapability` and `client.quote`.
 */
export function requireValidDryRun(
  capabilityId: string,
  dryRun: { valid: boolean; violations?: readonly object[] | undefined; audit_id: string },
): void {
  if (dryRun.valid) return;
  throw new DryRunInvalidError({
    capabilityId,
    violations: [...(dryRun.violations ?? [])] as Record<string, unknown>[],
    auditId: dryRun.audit_id,
  });
}

/**
 * The spec's paid sequence: describe → dry_run (must be valid) → `wallet.agent_budget.guard.check` with
 * the dry run's `estimated_cost.amount_max` → invoke with an idempotency key, only when the check
 * `succeeded` and `result.allowed` is true. All steps use the version describe resolved.
 * @internal Exposed as `client.runPaidCapability`.
 */
export async function runPaidCapability<Id extends CapabilityId>(
  client: GatewayClient,
  id: Id,
  params: CapabilityInput<Id>,
  options: PaidRunOptions = {},
): Promise<PaidRunResult<Id>> {
  const { window = 'task', version, idempotencyKey, approvalToken, ...call } = options;
  const description = await client.describe(id, { ...call, ...(version === undefined ? {} : { version }) });
  const pinned = { ...call, version: description.version };
  const dryRun = await client.dryRun(id, params, pinned);
  requireValidDryRun(id, dryRun);
  // Without an estimate, the catalog price per invoke is the best upper bound the gateway has published.
  const estimatedCostCredits = dryRun.estimated_cost?.amount_max ?? Number(description.cost_credits);
  const budget = await client.invoke(
    'wallet.agent_budget.guard.check',
    { capability_id: id, estimated_cost_credits: estimatedCostCredits, window },
    call,
  );
  if (budget.status !== 'succeeded' || budget.result?.allowed !== true) {
    throw new BudgetDeniedError({ capabilityId: id, estimatedCostCredits, guard: budget });
  }
  const invocation = await client.invoke(id, params, {
    ...pinned,
    idempotencyKey: idempotencyKey ?? newIdempotencyKey(),
    ...(approvalToken === undefined ? {} : { approvalToken }),
  });
  return { description, dryRun, budget, invocation };
}
