import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { OperatorPrincipal } from '../admin/operator-auth.js';
import { SecretBox } from '../secrets/secret-box.js';

/** A session ends after this long without a request… */
export const IDLE_SECONDS = 30 * 60;
/** …and at the latest this long after sign-in, however busy. */
const ABSOLUTE_SECONDS = 12 * 60 * 60;
/** The session cookie; scoped to /console, so no other route ever receives it. */
export const SESSION_COOKIE = 'agw_console';
/** The sign-in form's own cookie: binds its CSRF token before there is a session. */
export const SIGN_IN_COOKIE = 'agw_console_sign_in';

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/** A fresh random token for a cookie (256 bits, base64url). */
export function newCookieToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Opens a session for `operator`: only the token's sha-256 is stored. Sessions that ended are removed
 * on the way (the table holds live sessions and the few that ended since the last sign-in).
 */
export async function openSession(knex: Knex, operator: OperatorPrincipal): Promise<string> {
  const token = newCookieToken();
  await knex('console_sessions')
    .where('absolute_expires_at', '<=', knex.fn.now())
    .orWhere('idle_expires_at', '<=', knex.fn.now())
    .delete();
  await knex('console_sessions').insert({
    token_hash: hashOf(token),
    operator_key_id: operator.keyId,
    idle_expires_at: knex.raw(`now() + interval '${IDLE_SECONDS} seconds'`),
    absolute_expires_at: knex.raw(`now() + interval '${ABSOLUTE_SECONDS} seconds'`),
  });
  return token;
}

/**
 * The operator of a live session, its idle expiry moved on; undefined when the token is unknown, the
 * session ended, or its operator key was revoked or expired since (judged by the database clock).
 */
export async function resumeSession(
  knex: Knex,
  token: string | undefined,
): Promise<OperatorPrincipal | undefined> {
  if (token === undefined || !/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const result = await knex.raw(
    `update console_sessions s
        set idle_expires_at = least(now() + interval '${IDLE_SECONDS} seconds', s.absolute_expires_at)
       from api_keys k
      where s.token_hash = ? and k.id = s.operator_key_id and k.kind = 'operator'
        and s.idle_expires_at > now() and s.absolute_expires_at > now()
        and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())
  returning k.id, k.prefix`,
    [hashOf(token)],
  );
  const row = (result.rows as Array<{ id: string; prefix: string }>)[0];
  return row === undefined
    ? undefined
    : { keyId: row.id, prefix: row.prefix, actor: `operator:${row.prefix}` };
}

/** Ends a session (sign-out); a token that is not one changes nothing. */
export async function closeSession(knex: Knex, token: string): Promise<void> {
  await knex('console_sessions')
    .where({ token_hash: hashOf(token) })
    .delete();
}

/**
 * The synchronizer token of the forms a cookie's holder is shown: an HMAC of the cookie's token under
 * the server secret, so it is bound to that session (or that sign-in form) and never stored.
 */
export function csrfTokenOf(box: SecretBox, cookieToken: string): string {
  return box.mac('console-csrf', cookieToken).toString('base64url');
}

/** Whether `presented` is the CSRF token of `cookieToken` (constant time). */
export function csrfMatches(
  box: SecretBox,
  cookieToken: string | undefined,
  presented: string | undefined,
): boolean {
  if (cookieToken === undefined || presented === undefined) return false;
  return SecretBox.equal(box.mac('console-csrf', cookieToken), Buffer.from(presented, 'base64url'));
}
