import { createHash, timingSafeEqual } from 'node:crypto';
import { GatewayError } from '../http/gateway-error.js';
import type { SecretBox } from '../secrets/secret-box.js';

/** What a search cursor binds: where the next page starts, for which search, over which catalog. */
export interface CursorState {
  /** Index of the first result of the next page in the full ranked list. */
  readonly offset: number;
  /** {@link searchFingerprint} of the search that issued the cursor. */
  readonly fingerprint: string;
  /** The catalog digest the ranking was computed over. */
  readonly catalog: string;
}

/** Signs and verifies search_capabilities cursors. */
export interface CursorCodec {
  /** `base64url(JSON payload) + '.' + base64url(HMAC)`: opaque to clients, tamper-evident. */
  encode(state: CursorState): string;
  /**
   * The offset a cursor names, after checking its MAC, its search and its catalog; every mismatch is
   * 400 `invalid_cursor` with a message saying which.
   */
  decode(cursor: string, expected: Omit<CursorState, 'offset'>): number;
}

const FORMAT_VERSION = 1;
// 128 bits of HMAC-SHA-256 keep forgery out of reach while keeping cursors short.
const MAC_BYTES = 16;

/**
 * What a cursor is bound to: the normalized query and the filters (not `limit`: a client may change
 * the page size between pages, the order stays the same).
 */
export function searchFingerprint(search: {
  readonly query?: string | undefined;
  readonly domain?: string | undefined;
  readonly riskLevelMax?: string | undefined;
}): string {
  const parts = [search.query?.trim().toLowerCase() ?? '', search.domain ?? '', search.riskLevelMax ?? ''];
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 22);
}

/**
 * A codec whose MACs use the SecretBox's `search-cursor` key (derived from the server secret for this
 * purpose only), so instances sharing SECRET_KEY accept each other's cursors.
 */
export function createCursorCodec(box: SecretBox): CursorCodec {
  const mac = (payload: string) => box.mac('search-cursor', payload).subarray(0, MAC_BYTES);
  return {
    encode(state) {
      const payload = Buffer.from(
        JSON.stringify({ v: FORMAT_VERSION, o: state.offset, q: state.fingerprint, c: state.catalog }),
      ).toString('base64url');
      return `${payload}.${mac(payload).toString('base64url')}`;
    },
    decode(cursor, expected) {
      const [payload, signature, extra] = cursor.split('.');
      if (payload === undefined || signature === undefined || extra !== undefined) throw malformed();
      const given = Buffer.from(signature, 'base64url');
      const wanted = mac(payload);
      // Node's base64url decoder skips stray characters; only the canonical spelling is accepted.
      const canonical = given.toString('base64url') === signature;
      if (!canonical || given.length !== wanted.length || !timingSafeEqual(given, wanted)) throw malformed();
      const state = parsePayload(payload);
      if (state.q !== expected.fingerprint) {
        throw invalidCursor(
          'The cursor belongs to another query or filter; repeat the query, domain and risk_level_max of the first page, or omit cursor.',
        );
      }
      if (state.c !== expected.catalog) {
        throw invalidCursor('The catalog changed since this cursor was issued; search again without cursor.');
      }
      return state.o;
    },
  };
}

interface Payload {
  readonly v: number;
  readonly o: number;
  readonly q: string;
  readonly c: string;
}

// Only reached with a valid MAC, i.e. for a payload this gateway wrote; checked anyway, since a
// SECRET_KEY shared with an older format must not crash the route.
function parsePayload(payload: string): Payload {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw malformed();
  }
  const state = value as Partial<Payload> | null;
  if (
    state === null ||
    typeof state !== 'object' ||
    state.v !== FORMAT_VERSION ||
    !Number.isSafeInteger(state.o) ||
    (state.o as number) < 0 ||
    typeof state.q !== 'string' ||
    typeof state.c !== 'string'
  ) {
    throw malformed();
  }
  return state as Payload;
}

function malformed(): GatewayError {
  return invalidCursor('The cursor is not one this gateway issued; pass next_cursor exactly as returned.');
}

function invalidCursor(message: string): GatewayError {
  return new GatewayError('invalid_cursor', { message, schemaPointer: '/cursor' });
}
