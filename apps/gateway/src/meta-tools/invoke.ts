import type { CapabilityHandler } from '@agw/capabilities';
import { CapabilityError } from '@agw/capabilities';
import { INTERFACE_VERSION, type InvokeResponse } from '@agw/contracts';
import type { BeforeChallenge, Principal } from '@agw/guard';
import { GatewayError } from '../http/gateway-error.js';
import { hashIdempotencyKey } from '../idempotency/key-hash.js';
import { type MutationOutcome, ReleasedRefusal, StoredRefusal } from '../idempotency/run.js';
import { answerIdempotentOnSql, type WrittenOutcome } from '../idempotency/run-sql.js';
import { type Executed, executeCapability } from '../invoke/execute.js';
import { runPaidRead } from '../invoke/paid-read.js';
import { preflightDenial, runPreflight } from '../invoke/preflight.js';
import { refusalError } from '../invoke/refusal.js';
import type { InvokeRuntime } from '../invoke/runtime.js';
import { UnitOfWork } from '../invoke/unit-of-work.js';
import { acceptJob } from '../jobs/accept.js';
import { countRefusal } from '../metrics/refusals.js';
import type { AccessServices } from '../onboarding/services.js';
import { validateBody } from '../onboarding/validate.js';
import { auditRowOf } from '../ports/audit-sink.js';
import { errorAnswer, type MetaToolAnswer, type MetaToolRequest } from './answer.js';
import { capabilityKey } from './capability-key.js';
import type { CatalogContract, CatalogVersions } from './catalog.js';
import { resolveCapability } from './describe.js';
import { toGuardRequest } from './guard-request.js';
import type { QuoteCheck } from './quote.js';
import { rateLimitHeaders } from './rate-limit-headers.js';

/** What {@link invoke} needs besides the request. */
export interface InvokeDependencies {
  readonly runtime: InvokeRuntime;
  readonly versions: CatalogVersions;
  readonly handlers: ReadonlyMap<string, CapabilityHandler<never>>;
  readonly access: Pick<AccessServices, 'knex' | 'box' | 'idempotency'>;
  /** Checks an invoke's price quote (src/meta-tools/quote.ts); without it a quote is refused. */
  readonly checkQuote?: QuoteCheck;
}

/**
 * POST /mcp/invoke. Guards 1–6 (key, OTPs, approval, scopes, schema, policy) run first on the pool,
 * so a refusal or a `pending_approval` challenge is audited and committed on its own. A passed read
 * runs audit, billing, egress and its handler on the pool, one statement at a time, then writes its
 * outcome's audit rows (and a paid read's charge) at once. A long-running read continues in one
 * transaction on a pooled connection that the gateway drives itself (no knex transaction): its
 * acceptance, charge and audit records commit together. A mutating capability's declared read operation
 * (a `*.manage` list or get) sent without a key runs in a plain transaction of its own. Any other
 * mutating run needs `idempotency_key` (replay: the identical body plus
 * `replayed: true`; other params: 409) and runs through `answerIdempotentOnSql`: the settle's charge and
 * audit records — a long-running one's acceptance records and its job row — are written with the
 * stored answer.
 */
export async function invoke(call: MetaToolRequest, deps: InvokeDependencies): Promise<MetaToolAnswer> {
  const request = validateBody('InvokeRequest', call.body);
  const contract = resolveCapability(deps.versions, request.id, request.version);
  const handler = deps.handlers.get(capabilityKey(contract.id, contract.version));
  if (handler === undefined) {
    throw new GatewayError('capability_not_found', {
      message: `${contract.id}@${contract.version} has no handler in this gateway.`,
      hint: 'Use search_capabilities: it lists the capabilities this gateway runs.',
    });
  }
  // A *.manage capability's list or get sent without a key runs as a read (a sent key is honoured).
  const keylessRead = request.idempotency_key === undefined && readsOnly(contract, request.params);
  if (contract.mutating && request.idempotency_key === undefined && !keylessRead) {
    throw new GatewayError('idempotency_key_required', {
      message: `${contract.id} changes state: send an idempotency_key (16 to 128 characters).`,
      // The table's hint covers the access endpoints' header too; invoke takes the key in its body.
      hint: 'Add "idempotency_key" to the invoke body (16 to 128 visible ASCII characters, e.g. a UUID v4) and send the same value on every retry of this call.',
      schemaPointer: '/idempotency_key',
    });
  }
  if (call.quote !== undefined) await checkQuote(deps, call, contract, request.params);
  const { chain } = deps.runtime;
  // The chain (charge scope, audit, a job's row) sees only the key's keyed hash, never the key.
  const keyHash =
    request.idempotency_key === undefined
      ? undefined
      : hashIdempotencyKey(deps.access.box, request.idempotency_key);
  // Guards 1–6 on the pool: a refusal or challenge comes back settled (audited and committed). Before
  // policy asks an operator to approve, the handler's own checks run (src/invoke/preflight.ts): a run
  // they refuse is answered with the handler's error now, and no approval is created.
  const admission = await chain.admit(
    toGuardRequest(call, contract, request.params, {
      idempotencyKey: keyHash,
      approvalToken: request.approval_token,
    }),
    { beforeChallenge: preflightBeforeChallenge(deps.runtime, handler) },
  );
  // On every answer of an admitted or refused run (a thrown error's answer drops them, as before).
  const headers = rateLimitHeaders(admission);
  if (admission.outcome === 'challenge') {
    const { approval } = admission.decision;
    const body = {
      interface_version: INTERFACE_VERSION,
      status: 'pending_approval',
      capability_id: contract.id,
      resolved_version: contract.version,
      audit_id: admission.settlement.auditId ?? call.auditId,
      approval: {
        approval_id: approval.approval_id,
        approval_token: approval.approval_token,
        status: approval.status,
        expires_at: approval.expires_at,
        reason: approval.reason,
      },
    } satisfies InvokeResponse;
    return { status: 200, body, headers };
  }
  if (admission.outcome !== 'admitted') {
    const auditId = admission.settlement.auditId ?? call.auditId;
    if (admission.outcome === 'fault') {
      call.log.error({ err: admission.error, guard: admission.guard, audit_id: auditId }, 'guard fault');
    }
    countRefusal(deps.runtime.metrics, admission);
    return errorAnswer(refusalError(admission), auditId, headers);
  }
  const { principal } = admission;
  const { runtime } = deps;
  const capabilityCall = { contract, handler, params: request.params };
  if (!contract.mutating || keylessRead) {
    // A read's handler holds no connection across its run (src/db/tenant-read.ts). A free read's one
    // write, the decision and outcome audit rows, is a single group-committed INSERT; a paid read
    // writes its charge and audit rows in a short transaction after the handler (src/invoke/paid-read.ts).
    // A long-running read is accepted here, in one transaction with its job row, and run by a job
    // worker (src/jobs). A keyless read operation runs in a plain transaction: the handler is the
    // capability's mutating one (availability `get` makes the default calendar on first use).
    const executed = contract.long_running
      ? await UnitOfWork.transaction(runtime.knex, (unit) => acceptJob(unit, admission, contract, request))
      : keylessRead
        ? await UnitOfWork.transaction(runtime.knex, (unit) =>
            executeCapability(runtime, unit, admission, capabilityCall),
          )
        : isFree(contract)
          ? await executeCapability(runtime, UnitOfWork.read(runtime.knex), admission, capabilityCall)
          : await runPaidRead(runtime, admission, capabilityCall);
    if (executed.kind === 'succeeded') return { status: 200, body: executed.body, headers };
    const { error, auditId } = executed;
    if (error.code === 'internal_error') {
      call.log.error({ err: error.cause, audit_id: auditId }, 'capability failed');
    }
    return errorAnswer(error, auditId, headers);
  }
  const options = {
    knex: deps.access.knex,
    store: deps.access.idempotency,
    box: deps.access.box,
    scope: {
      tenant: principal.organization_id,
      principal: principal.key_id,
      key: request.idempotency_key as string,
    },
    route: '/mcp/invoke',
    body: request,
    encrypt: false,
    audit: {
      actor: `installation:${principal.installation_id}`,
      action: 'capability.invoke.idempotent',
      details: { capability_id: contract.id, capability_version: contract.version },
    },
  };
  // The fingerprint's method: both transports call this tool as its POST route.
  const idempotentCall = {
    method: 'POST',
    requestId: call.requestId,
    auditId: call.auditId,
    log: call.log,
    transport: call.transport,
  };
  const wallet = isFree(contract)
    ? undefined
    : { organizationId: principal.organization_id, now: runtime.clock.now() };
  // Four round trips when the handler sends one statement (an accepted long-running run's job row takes
  // its place): claim; BEGIN + fence (+ wallet snapshot); the handler; answer, charge and audit rows in
  // one statement with COMMIT (src/idempotency/run-sql.ts).
  const answer = await answerIdempotentOnSql(
    idempotentCall,
    { ...options, wallet },
    async (open, snapshot): Promise<WrittenOutcome> => {
      if (contract.long_running) {
        // The deferral's ports write as in any run's transaction: its audit rows are staged in the unit.
        const unit = UnitOfWork.within(open, snapshot);
        const accepted = await acceptJob(unit, admission, contract, request);
        return {
          outcome: mutationOutcome(accepted),
          auditRows: unit.takeAuditRows(),
          auditId: auditIdOf(accepted),
        };
      }
      const executed = await executeCapability(
        runtime,
        UnitOfWork.mutation(open, snapshot),
        admission,
        capabilityCall,
        { returnWrites: true },
      );
      return {
        outcome: mutationOutcome(executed),
        auditRows: (executed.writes?.audit ?? []).map(auditRowOf),
        auditId: auditIdOf(executed),
        charge: executed.writes?.charge,
      };
    },
  );
  const body = answer.replayed && answer.status === 200 ? markReplayed(answer.body) : answer.body;
  return {
    status: answer.status,
    body,
    headers: { ...headers, ...answer.headers },
    ...(answer.errorCode === undefined ? {} : { errorCode: answer.errorCode }),
  };
}

/** A run of one of the capability's declared `read_operations` (contracts: a `*.manage` list or get). */
function readsOnly(contract: CatalogContract, params: unknown): boolean {
  const operation = (params as { operation?: unknown } | null)?.operation;
  return typeof operation === 'string' && (contract.read_operations?.includes(operation) ?? false);
}

/** The policy guard's `beforeChallenge` of `handler`: its preflight's refusal as the run's denial. */
function preflightBeforeChallenge(
  runtime: InvokeRuntime,
  handler: CapabilityHandler<never>,
): BeforeChallenge | undefined {
  if (handler.check === undefined && handler.preflight === undefined) return undefined;
  return async (facts, guarded) => {
    const principal = facts.principal as Principal;
    return preflightDenial(await runPreflight(runtime, handler, guarded.params, principal));
  };
}

/**
 * A price quote (beyond the spec) is checked before anything runs: forged, expired, another
 * installation's, for other params, or below the capability's price now → 409 `quote_invalid`. A run it
 * admits is never charged more than quoted: billing charges at most the capability's price, which the
 * check just bounded by the quote's ceiling.
 */
async function checkQuote(
  deps: InvokeDependencies,
  call: MetaToolRequest,
  contract: CatalogContract,
  params: unknown,
): Promise<void> {
  if (deps.checkQuote === undefined) {
    throw new GatewayError('quote_invalid', { message: 'This gateway does not honour quotes.' });
  }
  const run = {
    capabilityId: contract.id,
    version: contract.version,
    params,
    costCredits: contract.cost_credits,
  };
  await deps.checkQuote(call.quote as string, run, call.headers.authorization);
}

/** A capability that costs nothing: billing reads no wallet for it. */
function isFree(contract: CatalogContract): boolean {
  return /^0(\.0+)?$/.test(contract.cost_credits);
}

/**
 * What a mutating run's result is for its idempotency key. A fault rolls back and releases the key (a
 * retry may succeed). The handler's own decision (a CapabilityError: not_found, conflict,
 * validation_failed) is stored: it ran. A guard's refusal (billing, egress) commits its audit but is not
 * stored, so once the operator funds the wallet or allows the host the same key runs (docs/decisions.md,
 * idempotency).
 */
function mutationOutcome(executed: Executed): MutationOutcome {
  if (executed.kind === 'succeeded') {
    return { status: 200, body: executed.body };
  }
  const { code } = executed.error;
  if (code === 'internal_error' || code === 'dependency_unavailable') throw executed.error;
  if (executed.error.cause instanceof CapabilityError) return new StoredRefusal(executed.error);
  return new ReleasedRefusal(executed.error);
}

/** The run's audit record: the one row a mutation writes, named by its answer (docs/decisions.md). */
function auditIdOf(executed: Executed): string {
  return executed.kind === 'refused' ? executed.auditId : executed.body.audit_id;
}

const REPLAYED_MARK = Buffer.from(',"replayed":true}');

/**
 * A replayed success carries `replayed: true`, otherwise the stored bytes unchanged: the mark is spliced
 * in before the stored object's closing brace (the stored text is our own compact JSON.stringify of a
 * non-empty object without `replayed`), so a replay costs no JSON parse and no re-serialization.
 */
function markReplayed(stored: Buffer | string): Buffer {
  const bytes = typeof stored === 'string' ? Buffer.from(stored, 'utf8') : stored;
  return Buffer.concat([bytes.subarray(0, bytes.lastIndexOf('}')), REPLAYED_MARK]);
}
