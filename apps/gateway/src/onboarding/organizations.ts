import { randomInt, randomUUID } from 'node:crypto';
import { buildOtpExtraction, defaultInstallationScopes, type OrganizationsResponse } from '@agw/contracts';
import type { Knex } from 'knex';
import { sqlOfKnex } from '../db/sql-knex.js';
import { GatewayError } from '../http/gateway-error.js';
import { parseIdempotencyKey } from '../idempotency/key-header.js';
import { runIdempotent } from '../idempotency/run.js';
import { authenticateKey } from '../keys/authenticate.js';
import { issueKey, KEY_TTL_SECONDS } from '../keys/issue-key.js';
import { agentCodeMail, ownerCodeMail } from '../mail/messages.js';
import { stageMail } from '../mail/outbox.js';
import type { NewNotice } from '../operator-notices/notices.js';
import { issueOtp } from '../otp/otp-service.js';
import { type AccessContext, accessRoutes, type Caller } from './context.js';
import type { AccessServices } from './services.js';
import { fieldMismatch, validateBody } from './validate.js';
import { type InstallationRow, installationView } from './views.js';

// Short human reference: 8 characters without the look-alikes 0/O, 1/I/L.
const SHORT_ID_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

/**
 * POST /organizations (bootstrap key, once): checks owner_email (and agent_email when registered)
 * against /register — a mismatch is 400 `validation_failed` pointing at the field, decided before
 * any effect; then, in one transaction, consumes the bootstrap key and creates the organization, the
 * pending installation, its installation key (90 days) and the owner/agent codes with their mail.
 * A spent bootstrap key can only replay the answer that spent it (401 `api_key_revoked` otherwise).
 */
export async function createOrganization(
  ctx: AccessContext,
  services: AccessServices,
  caller: Caller,
): Promise<void> {
  const key = parseIdempotencyKey(ctx.headers['idempotency-key']);
  const { knex } = services;
  const auth = await authenticateKey(knex, ctx.get('Authorization') || undefined, {
    kind: 'bootstrap',
    spentIsLive: true,
  });
  caller.actor = `app:${auth.row.app_id}`;
  caller.keyPrefix = auth.row.prefix;
  const body = validateBody('OrganizationsRequest', ctx.state.body);
  const app = await knex('apps').where({ id: auth.row.app_id }).first();
  if (body.owner_email !== app.owner_email) {
    throw fieldMismatch('/owner_email', 'owner_email must equal the owner_email sent to POST /register.');
  }
  if (app.agent_email !== null && (body.agent_email ?? null) !== app.agent_email) {
    throw fieldMismatch('/agent_email', 'agent_email must equal the agent_email sent to POST /register.');
  }
  if (app.agent_email === null && body.agent_email) {
    throw fieldMismatch('/agent_email', 'No agent_email was registered; register again to add one.');
  }
  const staged: string[] = [];
  await runIdempotent(
    ctx,
    {
      knex,
      store: services.idempotency,
      box: services.box,
      scope: { tenant: `app:${app.id}`, principal: auth.row.id, key },
      route: accessRoutes.organizations,
      body,
      encrypt: true,
      audit: { actor: caller.actor, action: 'organization.create', details: { key_prefix: auth.row.prefix } },
    },
    async (trx) => {
      const consumed = await trx('api_keys')
        .where({ id: auth.row.id })
        .whereNull('consumed_at')
        .update({ consumed_at: trx.fn.now() });
      if (auth.spent || consumed !== 1) throw bootstrapSpent();
      const [organization] = await trx('organizations')
        .insert({ name: body.organization.name, short_id: await freeShortId(trx) })
        .returning(['id', 'name']);
      const [installation] = (await trx('installations')
        .insert({
          organization_id: organization.id,
          app_id: app.id,
          owner_email: app.owner_email,
          owner_user_id: randomUUID(),
          sb_user_id: `sbu_${randomUUID().replaceAll('-', '')}`,
          agent_email: app.agent_email,
          scopes: [...defaultInstallationScopes],
        })
        .returning('*')) as InstallationRow[];
      if (!installation) throw new Error('installation insert returned nothing');
      const installationKey = await issueKey(trx, {
        kind: 'installation',
        scopes: installation.scopes,
        ttlSeconds: KEY_TTL_SECONDS.installation,
        installationId: installation.id,
        organizationId: organization.id,
      });
      const mailContext = { organizationName: organization.name, appName: app.name, appSlug: app.slug };
      const owner = await issueOtp(trx, services.box, services.otp, {
        installationId: installation.id,
        purpose: 'owner',
        email: app.owner_email,
      });
      if (owner.status === 'queued') {
        staged.push(
          await stageMail(trx, services.box, {
            to: app.owner_email,
            ...ownerCodeMail({ ...mailContext, code: owner.code, expiresAt: owner.expiresAt }),
            otpCodeId: owner.id,
          }),
        );
      }
      let agentDelivery: OrganizationsResponse['agent_otp_delivery'] = null;
      if (app.agent_email !== null) {
        const agent = await issueOtp(trx, services.box, services.otp, {
          installationId: installation.id,
          purpose: 'agent',
          email: app.agent_email,
        });
        const correlationId = agent.correlationId ?? '';
        if (agent.status === 'queued') {
          staged.push(
            await stageMail(trx, services.box, {
              to: app.agent_email,
              ...agentCodeMail({
                ...mailContext,
                code: agent.code,
                expiresAt: agent.expiresAt,
                correlationId,
              }),
              otpCodeId: agent.id,
            }),
          );
        }
        agentDelivery = {
          status: agent.status,
          expires_at: agent.expiresAt,
          correlation_id: correlationId,
          extraction: buildOtpExtraction(correlationId),
        };
      }
      const notice: NewNotice = {
        kind: 'installation',
        subjectId: installation.id,
        summary: `${app.name} (${app.slug}) for the new organization ${organization.name}, owner ${app.owner_email}`,
      };
      await services.notices.record(sqlOfKnex(trx), notice);
      caller.organizationId = organization.id;
      caller.installationId = installation.id;
      const response: OrganizationsResponse = {
        organization: { id: organization.id, name: organization.name },
        installation: installationView(installation),
        installation_key: {
          token: installationKey.token,
          expires_at: installationKey.expiresAt,
          scopes: installationKey.scopes,
        },
        owner_otp_delivery: { status: owner.status, expires_at: owner.expiresAt },
        agent_otp_delivery: agentDelivery,
      };
      return {
        status: 201,
        body: response,
        auditDetails: {
          key_prefix: auth.row.prefix,
          organization_id: organization.id,
          installation_id: installation.id,
          installation_key_prefix: installationKey.prefix,
        },
        afterCommit: () => {
          for (const id of staged) services.outbox.dispatch(id);
          // Never rejects (logs a failure; the digest mails the notice then).
          void services.notices.announce(notice);
        },
      };
    },
  );
}

function bootstrapSpent(): GatewayError {
  return new GatewayError('api_key_revoked', {
    message: 'This bootstrap key was already used to create an organization.',
    hint: 'A bootstrap key works once. Use the installation key from that answer; a lost installation key cannot be recovered.',
  });
}

async function freeShortId(trx: Knex.Transaction): Promise<string> {
  for (let attempt = 0; attempt < 8; attempt += 1) {
    let candidate = '';
    for (let index = 0; index < 8; index += 1)
      candidate += SHORT_ID_ALPHABET[randomInt(SHORT_ID_ALPHABET.length)];
    if (!(await trx('organizations').where({ short_id: candidate }).first('id'))) return candidate;
  }
  throw new Error('no free organization short id after 8 attempts');
}
