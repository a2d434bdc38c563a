import type { RegisterResponse } from '@agw/contracts';
import type { Knex } from 'knex';
import { GatewayError } from '../http/gateway-error.js';
import { parseIdempotencyKey } from '../idempotency/key-header.js';
import { runIdempotent } from '../idempotency/run.js';
import { issueKey, KEY_TTL_SECONDS } from '../keys/issue-key.js';
import { type AccessContext, accessRoutes, type Caller } from './context.js';
import type { AccessServices } from './services.js';
import { validateBody } from './validate.js';

/** The access mode the operator set: `open` (default when unset) or `invite_only`. */
export async function readAccessMode(knex: Knex): Promise<'open' | 'invite_only'> {
  const row = await knex('gateway_settings').where({ key: 'access_mode' }).first('value');
  const value =
    typeof row?.value === 'string' && row.value.startsWith('"') ? JSON.parse(row.value) : row?.value;
  return value === 'invite_only' ? 'invite_only' : 'open';
}

/** What a replay of /register says instead of the bootstrap key (shown once). */
export const REGISTER_REPLAY_HINT =
  'The bootstrap key is shown only in the first answer to this registration, never in a replay. ' +
  'If it was lost, register again with a new Idempotency-Key and another app slug, or ask the gateway operator.';

/**
 * POST /register (no auth): creates the app and a bootstrap key (scope `platform:bootstrap`, 1 h,
 * valid once for POST /organizations). Under `invite_only` the owner_email must be invited (403
 * `forbidden` otherwise); the invite's `used_at` records its first use. A slug that is taken is 409
 * `conflict` naming it. 201 RegisterResponse. Anyone who knows a request's Idempotency-Key and body can
 * replay it (there is no principal), so a replay answers the registration without the bootstrap key:
 * only that is stored (issue 12, finding 2; docs/decisions.md).
 */
export async function register(ctx: AccessContext, services: AccessServices, caller: Caller): Promise<void> {
  const key = parseIdempotencyKey(ctx.headers['idempotency-key']);
  const body = validateBody('RegisterRequest', ctx.state.body);
  const { knex } = services;
  const invited = async (db: Knex) =>
    db('access_invites').whereRaw('lower(email) = lower(?)', [body.owner_email]).first('email');
  if ((await readAccessMode(knex)) === 'invite_only' && !(await invited(knex))) {
    throw new GatewayError('forbidden', {
      message: 'Registration is by invitation only at the moment.',
      hint: 'Ask the gateway operator to invite the owner_email (agw access invite <email>), then register again.',
    });
  }
  await runIdempotent(
    ctx,
    {
      knex,
      store: services.idempotency,
      box: services.box,
      scope: { tenant: 'anonymous', principal: accessRoutes.register, key },
      route: accessRoutes.register,
      body,
      // Nothing secret is stored: the replay body has no bootstrap key.
      encrypt: false,
      audit: { actor: caller.actor, action: 'app.register', details: {} },
    },
    async (trx) => {
      // Serialises registrations of one slug across instances (an advisory lock rather than a unique
      // index: databases from before this rule may hold duplicate slugs, which an index would refuse).
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`agw:app-slug:${body.app.slug}`]);
      if (await trx('apps').where({ slug: body.app.slug }).first('id')) throw slugTaken(body.app.slug);
      const [app] = await trx('apps')
        .insert({
          slug: body.app.slug,
          name: body.app.name,
          description: body.app.description ?? null,
          contact_email: body.app.contact_email ?? null,
          homepage_url: body.app.homepage_url ?? null,
          owner_email: body.owner_email,
          agent_email: body.agent_email ?? null,
        })
        .returning(['id', 'slug', 'name', 'verification_status']);
      await trx('access_invites')
        .whereRaw('lower(email) = lower(?)', [body.owner_email])
        .whereNull('used_at')
        .update({ used_at: trx.fn.now() });
      const bootstrap = await issueKey(trx, {
        kind: 'bootstrap',
        scopes: ['platform:bootstrap'],
        ttlSeconds: KEY_TTL_SECONDS.bootstrap,
        appId: app.id,
      });
      const response: RegisterResponse = {
        app: { id: app.id, slug: app.slug, name: app.name, verification_status: app.verification_status },
        agent_email: body.agent_email ?? null,
        bootstrap_key: { token: bootstrap.token, expires_at: bootstrap.expiresAt, scopes: bootstrap.scopes },
      };
      const replay: RegisterResponse = {
        ...response,
        bootstrap_key: null,
        replayed: true,
        hint: REGISTER_REPLAY_HINT,
      };
      return {
        status: 201,
        body: response,
        replayBody: replay,
        auditDetails: { app_id: app.id, key_prefix: bootstrap.prefix },
      };
    },
  );
}

function slugTaken(slug: string): GatewayError {
  return new GatewayError('conflict', {
    message: `The app slug "${slug}" is already registered.`,
    hint: 'Choose another app.slug; a slug names one registered app.',
    schemaPointer: '/app/slug',
  });
}
