import { canonicalJson } from '@agw/guard';
import type { Knex } from 'knex';
import type { ParameterizedContext } from 'koa';
import { type AuditTransport, recordAuditEvent } from '../audit.js';
import { knexTransaction } from '../db/knex-transaction.js';
import { renderError } from '../http/error-envelope.js';
import type { GatewayError } from '../http/gateway-error.js';
import type { GatewayState } from '../http/state.js';
import type { Logger } from '../logger.js';
import type { AuditRow } from '../ports/audit-rows.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { auditKeyHash, hashIdempotencyKey } from './key-hash.js';
import { REPLAYED_HEADER } from './key-header.js';
import type { IdempotencyScope, IdempotencyStore, StoredResponse } from './store.js';

/** Who acts and what, for the audit row the mutation commits with its effect. */
export interface MutationAudit {
  readonly actor: string;
  readonly action: string;
  readonly details: Readonly<Record<string, unknown>>;
}

/** A successful mutation's answer. */
export interface MutationSuccess {
  readonly status: number;
  readonly body: unknown;
  /** Extra non-secret audit details (ids of what was created). */
  readonly auditDetails?: Readonly<Record<string, unknown>>;
  /** Runs after commit (e.g. sending staged mail); never awaited by the response. */
  readonly afterCommit?: () => void;
  /**
   * What a replay answers instead of `body`, when the first answer carried a secret that no later
   * request may receive (a replay of /register has no principal to tie the bootstrap key to). It is
   * stored in place of `body`, so the secret is never stored at all.
   */
  readonly replayBody?: unknown;
}

/**
 * A business refusal decided inside the handler whose effects must commit (e.g. a wrong code counts
 * as an attempt): returned, not thrown, so the transaction commits and the answer is stored.
 */
export class StoredRefusal {
  constructor(readonly error: GatewayError) {}
}

/**
 * A refusal decided by a guard inside the transaction, before the handler ran (billing's funds or caps,
 * egress): its audit rows commit, but nothing is stored under the key, so the same request with the same
 * key runs once the operator changed what refused it (security rules §1.2 rule 8; Stripe stores results
 * only once the endpoint began executing).
 */
export class ReleasedRefusal {
  constructor(readonly error: GatewayError) {}
}

/** Options of {@link runIdempotent}. */
export interface RunIdempotentOptions {
  readonly knex: Knex;
  readonly store: IdempotencyStore;
  readonly box: SecretBox;
  /** (tenant, principal) of the scope and the client's key in clear; only its keyed hash is stored. */
  readonly scope: IdempotencyScope;
  /** Route template, part of the fingerprint. */
  readonly route: string;
  /** The parsed request body, part of the fingerprint (never stored). */
  readonly body: unknown;
  /** Store the answer encrypted: it carries a one-time key. */
  readonly encrypt: boolean;
  readonly audit: MutationAudit;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** What the idempotent runner reads of the request it runs for. */
export interface IdempotentCall {
  /** The HTTP method, part of the fingerprint (a meta-tool call over MCP counts as its POST route). */
  readonly method: string;
  readonly requestId: string;
  readonly auditId: string;
  readonly log: Logger;
  /** How the call arrived, for its audit rows; `http` when not said. */
  readonly transport?: AuditTransport;
}

/** The answer of an idempotent run: the JSON bytes stored (or replayed), not parsed again. */
export interface IdempotentAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer | string;
  /** `Idempotent-Replayed: true` on a replay; `Retry-After` beside an error's `retry_after_seconds`. */
  readonly headers: Readonly<Record<string, string>>;
  readonly replayed: boolean;
  /** The error code of a fresh refusal (a replay's is not read back). */
  readonly errorCode?: string;
}

/**
 * Runs a mutation exactly once per idempotency key (security rules §1.2): replays a stored answer
 * byte for byte with `Idempotent-Replayed: true`; otherwise claims the key and runs `handler` in one
 * transaction together with the fence, the audit row and the stored answer. A throw rolls back and
 * releases the claim (nothing stored, the key may be reused); a returned {@link StoredRefusal}
 * commits and is stored like a success; a returned {@link ReleasedRefusal} commits and is not stored.
 * The key is stored and audited only as its keyed hash (the audit keeps a 16-hex prefix).
 */
export async function answerIdempotent(
  call: IdempotentCall,
  options: RunIdempotentOptions,
  handler: (trx: Knex.Transaction) => Promise<MutationSuccess | StoredRefusal | ReleasedRefusal>,
): Promise<IdempotentAnswer> {
  const { knex, store } = options;
  const claimed = await claimOrReplay(call, options);
  if (claimed.kind === 'replay') return claimed.answer;
  const { scope, requestId } = claimed;

  let afterCommit: (() => void) | undefined;
  let answer: Rendered;
  try {
    answer = await knexTransaction(knex, async (trx) => {
      await store.fence(trx, scope, requestId);
      const outcome = await handler(trx);
      const rendered = render(outcome, call.auditId);
      const auditRow = ownAuditRow(call, options, claimed.keyHash, outcome, rendered);
      if (outcome instanceof ReleasedRefusal) {
        await store.discard(trx, scope, requestId, auditRow);
        return rendered;
      }
      const stored = storedAnswer(outcome, rendered, options.encrypt);
      await store.complete(trx, scope, requestId, stored.response, stored.encrypt, auditRow);
      if (isSuccess(outcome)) afterCommit = outcome.afterCommit;
      return rendered;
    });
  } catch (error) {
    await releaseClaim(call, store, scope, requestId);
    throw error;
  }
  afterCommit?.();
  return freshAnswer(answer);
}

/** A claimed key (with what the run needs of it), or the stored answer replayed and audited. */
type Claim =
  | { readonly kind: 'replay'; readonly answer: IdempotentAnswer }
  | {
      readonly kind: 'claimed';
      /** The scope with the key's keyed hash, as stored. */
      readonly scope: IdempotencyScope;
      /** The claim's holder id: this request and this run. */
      readonly requestId: string;
      /** The 16-hex prefix the audit keeps. */
      readonly keyHash: string;
    };

/** The key of a run as stored: its scope with the key's keyed hash, and the request's fingerprint. */
export interface RunKey {
  /** The scope with the key's keyed hash, as stored. */
  readonly scope: IdempotencyScope;
  /** The 16-hex prefix the audit keeps. */
  readonly keyHash: string;
  /** The request's keyed fingerprint (method, route, body): what a replay must match. */
  readonly fingerprint: string;
}

/** The stored form of the run's key and the request's fingerprint. */
export function runKey(call: IdempotentCall, options: RunIdempotentOptions): RunKey {
  const { box } = options;
  const scope = { ...options.scope, key: hashIdempotencyKey(box, options.scope.key) };
  const fingerprint = box
    .mac(
      'idempotency-fingerprint',
      canonicalJson({ method: call.method, route: options.route, body: options.body }),
    )
    .toString('hex');
  return { scope, keyHash: auditKeyHash(scope.key), fingerprint };
}

/**
 * Claims the key (one autocommitted statement: a racer sees it at once), or answers a replay. 409 for
 * another request under the key or one still running (src/idempotency/store.ts `begin`).
 */
async function claimOrReplay(call: IdempotentCall, options: RunIdempotentOptions): Promise<Claim> {
  const { scope, keyHash, fingerprint } = runKey(call, options);
  const requestId = `${call.requestId}:${call.auditId}`;
  const begun = await options.store.begin(scope, fingerprint, requestId);
  if (begun.kind === 'claimed') return { kind: 'claimed', scope, requestId, keyHash };
  return { kind: 'replay', answer: await replayAnswer(call, options, keyHash, begun.response) };
}

/** A stored answer replayed: its bytes with `Idempotent-Replayed: true`, audited as `replayed`. */
export async function replayAnswer(
  call: IdempotentCall,
  options: RunIdempotentOptions,
  keyHash: string,
  response: StoredResponse,
): Promise<IdempotentAnswer> {
  await recordAuditEvent(options.knex, call.log, {
    auditId: call.auditId,
    requestId: call.requestId,
    actor: options.audit.actor,
    action: options.audit.action,
    outcome: 'replayed',
    httpStatus: response.status,
    details: { ...options.audit.details, idempotency_key_hash: keyHash, replayed: true },
    transport: call.transport ?? 'http',
  });
  return {
    status: response.status,
    contentType: response.contentType,
    body: response.body,
    headers: { [REPLAYED_HEADER]: 'true' },
    replayed: true,
  };
}

/** After a rollback: the claim goes, so a retry with the key runs (a failed release is logged). */
async function releaseClaim(
  call: IdempotentCall,
  store: IdempotencyStore,
  scope: IdempotencyScope,
  requestId: string,
): Promise<void> {
  await store.release(scope, requestId).catch((releaseError: unknown) => {
    call.log.error({ err: releaseError }, 'idempotency claim release failed');
  });
}

/** The idempotent run's own audit row: what it answered, under the key's hash. */
export function ownAuditRow(
  call: IdempotentCall,
  options: RunIdempotentOptions,
  keyHash: string,
  outcome: MutationOutcome,
  rendered: Rendered,
): AuditRow {
  const refused = !isSuccess(outcome);
  return {
    audit_id: call.auditId,
    request_id: call.requestId,
    actor: options.audit.actor,
    action: options.audit.action,
    outcome: refused ? 'denied' : 'succeeded',
    http_status: rendered.status,
    details: JSON.stringify({
      ...options.audit.details,
      ...(refused ? { code: outcome.error.code } : outcome.auditDetails),
      idempotency_key_hash: keyHash,
      ...(outcome instanceof ReleasedRefusal ? { stored: false } : {}),
      transport: call.transport ?? 'http',
    }),
  };
}

/** What is stored under the key for a success or a stored refusal: a secret never is. */
export function storedAnswer(
  outcome: MutationSuccess | StoredRefusal,
  rendered: Rendered,
  encrypt: boolean,
): { readonly response: StoredResponse; readonly encrypt: boolean } {
  const refused = !isSuccess(outcome);
  const stored =
    !refused && outcome.replayBody !== undefined
      ? { text: JSON.stringify(outcome.replayBody), encrypt: false }
      : { text: rendered.text, encrypt: encrypt && !refused };
  return {
    response: { status: rendered.status, contentType: JSON_TYPE, body: Buffer.from(stored.text, 'utf8') },
    encrypt: stored.encrypt,
  };
}

/** The answer of a run that was not a replay. */
export function freshAnswer(answer: Rendered): IdempotentAnswer {
  return {
    status: answer.status,
    contentType: JSON_TYPE,
    body: answer.text,
    headers: answer.headers ?? {},
    replayed: false,
    ...(answer.errorCode === undefined ? {} : { errorCode: answer.errorCode }),
  };
}

/** The part of a Koa context {@link runIdempotent} reads and answers on. */
export type IdempotentContext = Pick<
  ParameterizedContext<GatewayState>,
  'method' | 'state' | 'status' | 'type' | 'body' | 'set'
>;

/** {@link answerIdempotent} for a Koa route: the answer is written to `ctx`. */
export async function runIdempotent(
  ctx: IdempotentContext,
  options: RunIdempotentOptions,
  handler: (trx: Knex.Transaction) => Promise<MutationSuccess | StoredRefusal | ReleasedRefusal>,
): Promise<void> {
  const { requestId, auditId, log } = ctx.state;
  const answer = await answerIdempotent({ method: ctx.method, requestId, auditId, log }, options, handler);
  ctx.set(answer.headers);
  ctx.status = answer.status;
  ctx.type = answer.contentType;
  ctx.body = answer.body;
  if (answer.errorCode !== undefined) ctx.state.errorCode = answer.errorCode;
}

/** What a mutation's handler returns. */
export type MutationOutcome = MutationSuccess | StoredRefusal | ReleasedRefusal;

/** An answer rendered to its JSON text. */
export interface Rendered {
  readonly status: number;
  readonly text: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly errorCode?: string;
}

export function isSuccess(outcome: MutationOutcome): outcome is MutationSuccess {
  return !(outcome instanceof StoredRefusal || outcome instanceof ReleasedRefusal);
}

export function render(outcome: MutationOutcome, auditId: string): Rendered {
  if (!isSuccess(outcome)) {
    const { status, headers, body } = renderError(outcome.error, auditId);
    return { status, text: JSON.stringify(body), headers, errorCode: outcome.error.code };
  }
  return { status: outcome.status, text: JSON.stringify(outcome.body) };
}
