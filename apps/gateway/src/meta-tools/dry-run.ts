import type { CapabilityHandler } from '@agw/capabilities';
import { type DryRunResponse, errorCodes, INTERFACE_VERSION, MAX_VIOLATIONS } from '@agw/contracts';
import { budgetRefusal, hashParams, type Principal, parseCredits } from '@agw/guard';
import { runPreflight } from '../invoke/preflight.js';
import { refusalError } from '../invoke/refusal.js';
import type { InvokeRuntime } from '../invoke/runtime.js';
import { countRefusal } from '../metrics/refusals.js';
import { validateBody } from '../onboarding/validate.js';
import { errorAnswer, type MetaToolAnswer, type MetaToolRequest } from './answer.js';
import { capabilityKey } from './capability-key.js';
import type { CatalogVersions } from './catalog.js';
import { resolveCapability } from './describe.js';
import { toGuardRequest } from './guard-request.js';
import type { QuoteCodec } from './quote.js';

/**
 * POST /mcp/dry_run: the guard chain in `dry_run` mode (it stops after `policy`, creates no approval
 * and consumes no rate limit), then one audit record of the simulation — the only row it writes.
 * Params that break the input schema are answered 200 with `valid: false` and the violations (JSON
 * Pointers under `/params`); a refused caller (401, 403, 412) gets the error envelope. Params that pass
 * the schema then go through the handler's own checks: its port-free `check` (e.g. an upload's content
 * against its declared type) and its `preflight`, the business rules run in a read-only transaction
 * that is always rolled back (src/invoke/preflight.ts: an open balance, a document's state). Their
 * violations are answered the same way, each with the `code` and `hint` invoke would answer, so a dry
 * run refuses what invoke would refuse; a preflight's `preview` (a draft's totals per VAT group) is an
 * effect `{ kind: 'preview', capability_id, preview }`. The budget is checked read-only as billing
 * would check it: a run the wallet or a cap would refuse is a `budget` violation with the code, hint and
 * wait (`retry_after_seconds`) invoke would answer. A valid run's `estimated_cost` carries a signed
 * `quote` (src/meta-tools/quote.ts) invoke honours. At most MAX_VIOLATIONS violations are listed, like an
 * error envelope's `details`.
 */
export async function dryRun(
  call: MetaToolRequest,
  runtime: InvokeRuntime,
  versions: CatalogVersions,
  handlers?: ReadonlyMap<string, CapabilityHandler<never>>,
  quotes?: QuoteCodec,
): Promise<MetaToolAnswer> {
  const request = validateBody('DryRunRequest', call.body);
  const contract = resolveCapability(versions, request.id, request.version);
  const run = await runtime.chain.dryRun(toGuardRequest(call, contract, request.params));
  const auditId = run.settlement.auditId ?? call.auditId;
  if (run.outcome !== 'simulated') countRefusal(runtime.metrics, run);
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
      violations: (run.decision.details ?? []).slice(0, MAX_VIOLATIONS).map((detail) => ({ ...detail })),
    };
    return { status: 200, body };
  }
  if (run.outcome === 'deny' || run.outcome === 'fault') {
    if (run.outcome === 'fault') {
      call.log.error({ err: run.error, guard: run.guard, audit_id: auditId }, 'guard fault');
    }
    return errorAnswer(refusalError(run), auditId);
  }
  const { facts } = run;
  const handler = handlers?.get(capabilityKey(contract.id, contract.version));
  const principal = facts.principal as Principal;
  const preflight = await runPreflight(runtime, handler, request.params, principal);
  const { preview } = preflight;
  const budget = await budgetViolation(runtime, principal, contract.cost_credits);
  const violations = budget === undefined ? preflight.violations : [...preflight.violations, budget];
  if (violations.length > 0) {
    const body: DryRunResponse = {
      ...base,
      valid: false,
      violations: violations.slice(0, MAX_VIOLATIONS).map((v) => ({ ...v })),
    };
    return { status: 200, body };
  }
  const body: DryRunResponse = {
    ...base,
    valid: true,
    violations: [],
    would_require_approval: facts.approvalRequired === true,
    ...(facts.approvalReason === undefined ? {} : { approval_reason: facts.approvalReason }),
    estimated_cost: {
      amount_max: Number(contract.cost_credits),
      currency: 'credits',
      ...quoteOf(quotes, principal, contract, request.params, runtime.clock.now()),
    },
    effects: [
      ...(contract.mutating
        ? [{ kind: 'state_change', capability_id: contract.id, idempotency_key_required: true }]
        : []),
      // What the run would produce, as far as its preflight can tell (e.g. a draft's totals).
      ...(preview === undefined ? [] : [{ kind: 'preview', capability_id: contract.id, preview }]),
    ],
  };
  return { status: 200, body };
}

/** The budget's refusal of a run costing `costCredits`, as a violation (billing's check, read-only). */
async function budgetViolation(runtime: InvokeRuntime, principal: Principal, costCredits: string) {
  const estimate = parseCredits(costCredits);
  if (estimate === 0n) return undefined;
  const ports = { wallet: runtime.wallet, clock: runtime.clock };
  const refusal = await budgetRefusal(ports, principal.organization_id, estimate);
  if (refusal === undefined) return undefined;
  return {
    schema_pointer: '',
    keyword: 'budget',
    code: refusal.code,
    message: refusal.message,
    hint: refusal.hint ?? errorCodes[refusal.code].hint,
    ...(refusal.retryAfterSeconds === undefined ? {} : { retry_after_seconds: refusal.retryAfterSeconds }),
  };
}

/** The signed quote of a valid run: this installation, capability, version and params, at most its price. */
function quoteOf(
  quotes: QuoteCodec | undefined,
  principal: Principal,
  contract: { readonly id: string; readonly version: string; readonly cost_credits: string },
  params: unknown,
  now: Date,
): { quote?: string; quote_expires_at?: string } {
  if (quotes === undefined) return {};
  const issued = quotes.issue(
    {
      installationId: principal.installation_id,
      capabilityId: contract.id,
      version: contract.version,
      paramsHash: hashParams(params),
      amountMaxCredits: contract.cost_credits,
    },
    now,
  );
  return { quote: issued.quote, quote_expires_at: issued.expiresAt };
}
