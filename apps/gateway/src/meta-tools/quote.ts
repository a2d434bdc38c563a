import { type Clock, formatCredits, type Guard, hashParams, parseCredits } from '@agw/guard';
import { GatewayError } from '../http/gateway-error.js';
import { checkKey } from '../keys/authenticate.js';
import { SecretBox } from '../secrets/secret-box.js';

/** What a quote binds: who may use it, for which run, at most at what price, until when. */
export interface QuoteTerms {
  readonly installationId: string;
  readonly capabilityId: string;
  readonly version: string;
  /** The approval's params hash: sha-256 hex of the canonical JSON of `params`. */
  readonly paramsHash: string;
  /** The price ceiling in credits (the dry_run's `amount_max`), an exact decimal string. */
  readonly amountMaxCredits: string;
  readonly expiresAt: Date;
}

/** A quote as dry_run answers it. */
export interface IssuedQuote {
  readonly quote: string;
  readonly expiresAt: string;
}

/** Signs the quotes dry_run answers and checks the ones invoke is given. */
export interface QuoteCodec {
  /** A quote of `terms` without `expiresAt`, valid for the configured lifetime from `now`. */
  issue(terms: Omit<QuoteTerms, 'expiresAt'>, now: Date): IssuedQuote;
  /**
   * The terms of `quote` after checking its MAC, its expiry, and that it was issued for this run (its
   * capability, version and exact params) at a price the capability does not exceed now. Every mismatch
   * is 409 `quote_invalid`, before anything runs; the installation is checked once the key is known
   * ({@link createQuoteCheck}).
   */
  verify(quote: string, run: QuotedRun, now: Date): QuoteTerms;
}

/** The run an invoke asks for, as far as its quote must match it. */
export interface QuotedRun {
  readonly capabilityId: string;
  readonly version: string;
  readonly params: unknown;
  /** The capability's price now (its `cost_credits`). */
  readonly costCredits: string;
}

/** The default lifetime of a quote (QUOTE_TTL_SECONDS). */
export const DEFAULT_QUOTE_TTL_SECONDS = 900;

const PREFIX = 'agw_q_';
const FORMAT_VERSION = 1;
// 128 bits of HMAC-SHA-256: forgery out of reach, the quote still short enough for a header.
const MAC_BYTES = 16;

/**
 * A codec whose MACs use the SecretBox's `quote` key (derived from the server secret for this purpose
 * only), so every instance sharing SECRET_KEY honours the others' quotes; nothing is stored. A quote is
 * `agw_q_<base64url(JSON payload)>.<base64url(MAC)>`: opaque to clients, tamper-evident.
 */
export function createQuoteCodec(box: SecretBox, ttlSeconds = DEFAULT_QUOTE_TTL_SECONDS): QuoteCodec {
  const mac = (payload: string) => box.mac('quote', payload).subarray(0, MAC_BYTES);
  return {
    issue(terms, now) {
      const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
      const payload = Buffer.from(
        JSON.stringify({
          v: FORMAT_VERSION,
          i: terms.installationId,
          c: terms.capabilityId,
          r: terms.version,
          h: terms.paramsHash,
          m: terms.amountMaxCredits,
          e: Math.floor(expiresAt.getTime() / 1000),
        }),
      ).toString('base64url');
      return {
        quote: `${PREFIX}${payload}.${mac(payload).toString('base64url')}`,
        expiresAt: new Date(Math.floor(expiresAt.getTime() / 1000) * 1000).toISOString(),
      };
    },
    verify(quote, run, now) {
      const terms = decode(quote, mac);
      if (terms.expiresAt.getTime() <= now.getTime()) {
        throw quoteInvalid(`The quote expired at ${terms.expiresAt.toISOString()}.`);
      }
      if (terms.capabilityId !== run.capabilityId || terms.version !== run.version) {
        throw quoteInvalid(
          `The quote is for ${terms.capabilityId}@${terms.version}, not ${run.capabilityId}@${run.version}.`,
        );
      }
      if (terms.paramsHash !== hashParams(run.params)) {
        throw quoteInvalid('The params differ from the params the quote was issued for.');
      }
      if (parseCredits(run.costCredits) > parseCredits(terms.amountMaxCredits)) {
        throw quoteInvalid(
          `The price (${formatCredits(parseCredits(run.costCredits))} credits) is above the quote's ceiling of ${terms.amountMaxCredits} credits.`,
        );
      }
      return terms;
    },
  };
}

/**
 * Checks an invoke's quote before anything runs: the caller's key (401 as the chain would answer), then
 * the quote's MAC, expiry, run and price ({@link QuoteCodec.verify}) and that it was issued to the
 * caller's installation. Throws 409 `quote_invalid` for every mismatch.
 */
export type QuoteCheck = (quote: string, run: QuotedRun, authorization: string | undefined) => Promise<void>;

/** The {@link QuoteCheck} of `codec`, reading the caller's key through `keyGuard` (the cached key store). */
export function createQuoteCheck(codec: QuoteCodec, keyGuard: Guard, clock: Clock): QuoteCheck {
  return async (quote, run, authorization) => {
    const holder = await checkKey(keyGuard, authorization);
    const terms = codec.verify(quote, run, clock.now());
    if (terms.installationId !== holder.installation_id) {
      throw quoteInvalid('The quote was issued to another installation.');
    }
  };
}

function decode(quote: string, mac: (payload: string) => Buffer): QuoteTerms {
  const [payload, signature, extra] = quote.startsWith(PREFIX) ? quote.slice(PREFIX.length).split('.') : [];
  if (payload === undefined || signature === undefined || extra !== undefined) {
    throw quoteInvalid('The quote is malformed.');
  }
  if (!SecretBox.equal(Buffer.from(signature, 'base64url'), mac(payload))) {
    throw quoteInvalid('The quote was not issued by this gateway or was altered.');
  }
  const fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  if (fields.v !== FORMAT_VERSION) throw quoteInvalid('The quote has an unknown format.');
  return {
    installationId: String(fields.i),
    capabilityId: String(fields.c),
    version: String(fields.r),
    paramsHash: String(fields.h),
    amountMaxCredits: String(fields.m),
    expiresAt: new Date(Number(fields.e) * 1000),
  };
}

function quoteInvalid(message: string): GatewayError {
  return new GatewayError('quote_invalid', { message });
}
