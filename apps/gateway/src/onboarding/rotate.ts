import type { KeysRotateResponse } from '@agw/contracts';
import { GatewayError } from '../http/gateway-error.js';
import { parseIdempotencyKey } from '../idempotency/key-header.js';
import { runIdempotent } from '../idempotency/run.js';
import { issueKey, KEY_TTL_SECONDS } from '../keys/issue-key.js';
import { accessStateChanged } from '../keys/state-cache.js';
import { type AccessContext, accessRoutes, type Caller } from './context.js';
import { assertInitialPathDone, assertOperational } from './installation-checks.js';
import { authenticateInstallation } from './otp-handlers.js';
import type { AccessServices } from './services.js';
import { validateBody } from './validate.js';

/**
 * POST /keys/rotate: after the initial path (412 otherwise), issues a new installation key (90 days)
 * naming the old one in `rotated_from_key_id` and revokes the old key in the same transaction — no
 * grace period. The old key can afterwards only replay this very answer (same Idempotency-Key, 24 h),
 * so a client that lost the response still gets its new key. 201 KeysRotateResponse.
 */
export async function rotateKey(ctx: AccessContext, services: AccessServices, caller: Caller): Promise<void> {
  const key = parseIdempotencyKey(ctx.headers['idempotency-key']);
  const auth = await authenticateInstallation(ctx, services, caller, { spentIsLive: true });
  const body = validateBody('KeysRotateRequest', ctx.state.body);
  const installationId = auth.row.installation_id as string;
  const organizationId = auth.row.organization_id as string;
  if (!auth.spent) {
    await assertOperational(services.knex, installationId);
    await assertInitialPathDone(services.knex, installationId, organizationId);
  }
  await runIdempotent(
    ctx,
    {
      knex: services.knex,
      store: services.idempotency,
      box: services.box,
      scope: { tenant: organizationId, principal: auth.row.id, key },
      route: accessRoutes.rotate,
      body,
      encrypt: true,
      audit: {
        actor: caller.actor,
        action: 'key.rotate',
        details: { key_prefix: auth.row.prefix, installation_id: installationId },
      },
    },
    async (trx) => {
      const revoked = await trx('api_keys')
        .where({ id: auth.row.id })
        .whereNull('revoked_at')
        .update({ revoked_at: trx.fn.now(), revoked_reason: 'rotated' });
      accessStateChanged(trx);
      if (auth.spent || revoked !== 1) {
        throw new GatewayError('api_key_revoked', {
          message: 'This API key was rotated and no longer works.',
          hint: 'Use the key returned by POST /keys/rotate.',
        });
      }
      const next = await issueKey(trx, {
        kind: 'installation',
        scopes: auth.row.scopes,
        ttlSeconds: KEY_TTL_SECONDS.installation,
        installationId,
        organizationId,
        rotatedFromId: auth.row.id,
      });
      const response: KeysRotateResponse = {
        key: {
          token: next.token,
          expires_at: next.expiresAt,
          scopes: next.scopes,
          rotated_from_key_id: auth.row.id,
        },
      };
      return { status: 201, body: response, auditDetails: { new_key_prefix: next.prefix } };
    },
  );
}
