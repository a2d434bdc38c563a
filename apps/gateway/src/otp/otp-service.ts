import { randomBase62 } from '@agw/guard';
import type { Knex } from 'knex';
import { GatewayError } from '../http/gateway-error.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { generateOtp, type OtpPurpose, otpMac, otpMatches } from './codes.js';

/** One-time code rules (decisions, see README). */
export interface OtpSettings {
  /** Owner code lifetime (default 24 h: a human reads mail). */
  readonly ownerTtlSeconds: number;
  /** Agent mailbox code lifetime (default 1 h: the agent reads its mailbox at once). */
  readonly agentTtlSeconds: number;
  /** Minimum time between two codes of one purpose for one installation (default 60 s). */
  readonly resendCooldownSeconds: number;
  /** Wrong submissions per code before it is void (5). */
  readonly maxAttempts: number;
  /** Codes per purpose and installation per hour before further codes are `suppressed` (5). */
  readonly hourlyCap: number;
  /** Codes per purpose and installation ever before further codes are `suppressed` (10). */
  readonly lifetimeCap: number;
}

/** The defaults of {@link OtpSettings}. */
export const defaultOtpSettings: OtpSettings = {
  ownerTtlSeconds: 24 * 3600,
  agentTtlSeconds: 3600,
  resendCooldownSeconds: 60,
  maxAttempts: 5,
  hourlyCap: 5,
  lifetimeCap: 10,
};

/** A code just issued; `code` exists only in memory, for the mail. */
export interface IssuedOtp {
  readonly id: string;
  readonly code: string;
  readonly expiresAt: string;
  readonly correlationId: string | null;
  readonly status: 'queued' | 'suppressed';
}

/**
 * Issues a fresh code in the caller's transaction: every earlier unused code of the same purpose is
 * voided at once; the code is `suppressed` (never mailed) when the address is on the operator's
 * suppression list or the hourly/lifetime caps are reached. Only the code's HMAC is stored.
 */
export async function issueOtp(
  trx: Knex.Transaction,
  box: SecretBox,
  settings: OtpSettings,
  input: { installationId: string; purpose: OtpPurpose; email: string },
): Promise<IssuedOtp> {
  const { installationId, purpose, email } = input;
  await trx('otp_codes')
    .where({ installation_id: installationId, purpose })
    .whereNull('voided_at')
    .whereNull('consumed_at')
    .update({ voided_at: trx.fn.now() });
  const counts = await trx('otp_codes')
    .where({ installation_id: installationId, purpose })
    .first(
      trx.raw('count(*)::int AS lifetime'),
      trx.raw("count(*) FILTER (WHERE created_at > now() - interval '1 hour')::int AS hourly"),
    );
  const listed = await trx('mail_suppressions').whereRaw('lower(email) = lower(?)', [email]).first('email');
  const suppressed =
    listed !== undefined || counts.lifetime >= settings.lifetimeCap || counts.hourly >= settings.hourlyCap;
  const code = generateOtp();
  const ttl = purpose === 'owner' ? settings.ownerTtlSeconds : settings.agentTtlSeconds;
  const correlationId = purpose === 'agent' ? `ref-${randomBase62(20)}` : null;
  const [row] = await trx('otp_codes')
    .insert({
      installation_id: installationId,
      purpose,
      code_mac: otpMac(box, purpose, installationId, code),
      email,
      correlation_id: correlationId,
      delivery_status: suppressed ? 'suppressed' : 'queued',
      expires_at: trx.raw('now() + make_interval(secs => ?)', [ttl]),
    })
    .returning(['id', 'expires_at']);
  return {
    id: row.id,
    code,
    expiresAt: new Date(row.expires_at).toISOString(),
    correlationId,
    status: suppressed ? 'suppressed' : 'queued',
  };
}

/** Throws 409 `otp_resend_cooldown` (with Retry-After) when the last code is younger than the cooldown. */
export async function assertResendAllowed(
  trx: Knex.Transaction,
  settings: OtpSettings,
  installationId: string,
  purpose: OtpPurpose,
): Promise<void> {
  const row = await trx('otp_codes')
    .where({ installation_id: installationId, purpose })
    .orderBy('created_at', 'desc')
    .first(
      trx.raw('ceil(extract(epoch from (created_at + make_interval(secs => ?) - now())))::int AS wait', [
        settings.resendCooldownSeconds,
      ]),
    );
  if (row && row.wait > 0) {
    throw new GatewayError('otp_resend_cooldown', {
      message: `A fresh code was sent less than ${settings.resendCooldownSeconds} seconds ago.`,
      retryAfterSeconds: row.wait,
    });
  }
}

/**
 * Redeems the current code of `purpose` in the caller's transaction (security rules 3.2.4–6): the
 * row is locked, its attempt counter incremented before comparing, and it is consumed in the same
 * transaction as the caller's state change. Returns undefined on success, otherwise the refusal to
 * store: 400 `otp_invalid` / `otp_expired`, 403 `otp_attempts_exceeded`.
 */
export async function redeemOtp(
  trx: Knex.Transaction,
  box: SecretBox,
  settings: OtpSettings,
  input: { installationId: string; purpose: OtpPurpose; submitted: string },
): Promise<GatewayError | undefined> {
  const { installationId, purpose, submitted } = input;
  const current = await trx('otp_codes')
    .where({ installation_id: installationId, purpose })
    .whereNull('voided_at')
    .whereNull('consumed_at')
    .orderBy('created_at', 'desc')
    .forUpdate()
    .first('id', 'code_mac', trx.raw('(expires_at <= now()) AS expired'));
  if (!current) {
    return new GatewayError('otp_invalid', { message: 'The code is wrong or no longer valid.' });
  }
  const [{ attempts }] = await trx('otp_codes')
    .where({ id: current.id })
    .increment('attempts', 1)
    .returning('attempts');
  if (attempts > settings.maxAttempts) {
    return new GatewayError('otp_attempts_exceeded', {
      message: 'Too many wrong codes: this code is void.',
      hint: `Request a fresh code with POST /${purpose}-otp/resend.`,
    });
  }
  if (current.expired) {
    return new GatewayError('otp_expired', {
      message: 'The code has expired.',
      hint: `Request a fresh code with POST /${purpose}-otp/resend.`,
    });
  }
  if (!otpMatches(box, purpose, installationId, submitted, current.code_mac)) {
    return new GatewayError('otp_invalid', { message: 'The code is wrong or no longer valid.' });
  }
  await trx('otp_codes').where({ id: current.id }).update({ consumed_at: trx.fn.now() });
  return undefined;
}
