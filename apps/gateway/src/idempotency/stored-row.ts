import { GatewayError } from '../http/gateway-error.js';
import type { SecretBox } from '../secrets/secret-box.js';

// A row of `idempotency_keys` as the store reads it, and what it means for a request: the stored answer
// to replay, another request's key, or a claim still running. Both ways of the store
// (src/idempotency/store.ts) decide with it.

/** A completed answer, as stored and replayed. */
export interface StoredResponse {
  readonly status: number;
  readonly contentType: string;
  /** The exact response bytes. */
  readonly body: Buffer;
}

/** The columns of a scope's row the store reads (statements.ts READ and HOLD). */
export interface StoredRow {
  fingerprint: string;
  state: 'in_progress' | 'completed';
  locked_by: string | null;
  lease_live: boolean;
  response_status: number | null;
  response_headers: { 'content-type'?: string } | string | null;
  response_body: Uint8Array | null;
  response_encrypted: boolean;
}

/**
 * What a live row of the scope means for a request with `fingerprint`: its stored answer to replay, or
 * undefined for a claim whose lease ran out (it may be taken over). Throws for another request's key,
 * and while the claim's lease lasts.
 */
export function storedFor(box: SecretBox, row: StoredRow, fingerprint: string): StoredResponse | undefined {
  if (row.fingerprint !== fingerprint) {
    throw new GatewayError('idempotency_key_reused', {
      message: 'This Idempotency-Key was already used with a different request.',
    });
  }
  if (row.state === 'completed') return storedResponse(box, row);
  if (row.lease_live) throw inProgress();
  return undefined;
}

/** The stored answer's parameters ($5–$8 of the answer statements): status, headers, body, encrypted. */
export function responseParams(box: SecretBox, response: StoredResponse, encrypt: boolean): unknown[] {
  return [
    response.status,
    JSON.stringify({ 'content-type': response.contentType }),
    encrypt ? box.encrypt('idempotency-replay', response.body) : response.body,
    encrypt,
  ];
}

function storedResponse(box: SecretBox, row: StoredRow): StoredResponse {
  const stored = Buffer.from(row.response_body ?? new Uint8Array());
  const body = row.response_encrypted ? box.decrypt('idempotency-replay', stored) : stored;
  const headers =
    typeof row.response_headers === 'string'
      ? JSON.parse(row.response_headers)
      : (row.response_headers ?? {});
  return {
    status: row.response_status ?? 500,
    contentType: headers['content-type'] ?? 'application/json; charset=utf-8',
    body,
  };
}

/** The claim is gone (taken over after its lease): the request is answered as still in progress. */
export function inProgress(): GatewayError {
  return new GatewayError('idempotency_request_in_progress', {
    message: 'A request with this Idempotency-Key is still running.',
    retryAfterSeconds: 1,
  });
}
