import { buildOtpExtraction } from '@agw/contracts';
import { GatewayError } from '../http/gateway-error.js';
import { parseIdempotencyKey } from '../idempotency/key-header.js';
import { runIdempotent, StoredRefusal } from '../idempotency/run.js';
import { type AuthenticatedKey, authenticateKey } from '../keys/authenticate.js';
import { accessStateChanged } from '../keys/state-cache.js';
import { agentCodeMail, ownerCodeMail } from '../mail/messages.js';
import { stageMail } from '../mail/outbox.js';
import type { OtpPurpose } from '../otp/codes.js';
import { assertResendAllowed, issueOtp, redeemOtp } from '../otp/otp-service.js';
import { type AccessContext, accessRoutes, type Caller } from './context.js';
import { assertOperational, lockInstallation } from './installation-checks.js';
import type { AccessServices } from './services.js';
import { validateBody } from './validate.js';
import { type InstallationRow, installationView } from './views.js';

/** Authenticates the installation key and fills in the caller. */
export async function authenticateInstallation(
  ctx: AccessContext,
  services: AccessServices,
  caller: Caller,
  options: { spentIsLive?: boolean } = {},
): Promise<AuthenticatedKey> {
  const auth = await authenticateKey(services.knex, ctx.get('Authorization') || undefined, {
    kind: 'installation',
    ...options,
  });
  caller.actor = `installation:${auth.row.installation_id}`;
  caller.keyPrefix = auth.row.prefix;
  caller.installationId = auth.row.installation_id ?? undefined;
  caller.organizationId = auth.row.organization_id ?? undefined;
  return auth;
}

const verifiedAt = (row: InstallationRow, purpose: OtpPurpose) =>
  purpose === 'owner' ? row.owner_verified_at : row.agent_email_verified_at;

/**
 * POST /owner-otp/claim and POST /agent-otp/verify: redeems the current code of `purpose`. Wrong,
 * expired and exhausted codes are stored refusals (their attempt counts commit); a second redemption
 * is 409 `otp_already_used`; success sets owner_verified_at / agent_email_verified_at in the same
 * transaction that consumes the code. 200 with the installation.
 */
export async function redeemCode(
  ctx: AccessContext,
  services: AccessServices,
  caller: Caller,
  purpose: OtpPurpose,
): Promise<void> {
  const call = await prepareOtpCall(ctx, services, caller, purpose, 'redeem');
  const { installationId } = call;
  const body = call.body as { otp: string };
  await runIdempotent(ctx, call.options, async (trx) => {
    const installation = await lockInstallation(trx, installationId);
    if (verifiedAt(installation, purpose) !== null) {
      return new StoredRefusal(
        new GatewayError('otp_already_used', {
          message:
            purpose === 'owner'
              ? 'The owner code was already claimed.'
              : 'The agent mailbox is already verified.',
        }),
      );
    }
    const refusal = await redeemOtp(trx, services.box, services.otp, {
      installationId,
      purpose,
      submitted: body.otp,
    });
    if (refusal) return new StoredRefusal(refusal);
    const column = purpose === 'owner' ? 'owner_verified_at' : 'agent_email_verified_at';
    const [updated] = (await trx('installations')
      .where({ id: installationId })
      .update({ [column]: trx.fn.now(), updated_at: trx.fn.now() })
      .returning('*')) as InstallationRow[];
    accessStateChanged(trx);
    return { status: 200, body: { installation: installationView(updated as InstallationRow) } };
  });
}

/**
 * POST /owner-otp/resend and POST /agent-otp/resend: one fresh code per request for an active,
 * unredeemed installation (409 `conflict` once redeemed, 409 `otp_resend_cooldown` within 60 s of
 * the last code); every earlier code is void at once; the agent code gets a new correlation_id.
 */
export async function resendCode(
  ctx: AccessContext,
  services: AccessServices,
  caller: Caller,
  purpose: OtpPurpose,
): Promise<void> {
  const { installationId, options } = await prepareOtpCall(ctx, services, caller, purpose, 'resend');
  let staged: string | undefined;
  await runIdempotent(ctx, options, async (trx) => {
    const installation = await lockInstallation(trx, installationId);
    if (verifiedAt(installation, purpose) !== null) {
      throw new GatewayError('conflict', {
        message:
          purpose === 'owner'
            ? 'The owner code was already claimed.'
            : 'The agent mailbox is already verified.',
        hint: 'Nothing to resend: poll GET /org/current.',
      });
    }
    await assertResendAllowed(trx, services.otp, installationId, purpose);
    const email = purpose === 'owner' ? installation.owner_email : (installation.agent_email as string);
    const issued = await issueOtp(trx, services.box, services.otp, { installationId, purpose, email });
    const context = await trx('organizations as o')
      .join('installations as i', 'i.organization_id', 'o.id')
      .join('apps as a', 'a.id', 'i.app_id')
      .where('i.id', installationId)
      .first('o.name as organizationName', 'a.name as appName', 'a.slug as appSlug');
    const mailContext = { ...context, code: issued.code, expiresAt: issued.expiresAt };
    const correlationId = issued.correlationId ?? '';
    if (issued.status === 'queued') {
      staged = await stageMail(trx, services.box, {
        to: email,
        ...(purpose === 'owner'
          ? ownerCodeMail(mailContext)
          : agentCodeMail({ ...mailContext, correlationId })),
        otpCodeId: issued.id,
      });
    }
    const delivery =
      purpose === 'owner'
        ? { owner_otp_delivery: { status: issued.status, expires_at: issued.expiresAt } }
        : {
            agent_otp_delivery: {
              status: issued.status,
              expires_at: issued.expiresAt,
              correlation_id: correlationId,
              extraction: buildOtpExtraction(correlationId),
            },
          };
    return {
      status: 200,
      body: { installation: installationView(installation), ...delivery },
      auditDetails: { delivery_status: issued.status },
      afterCommit: () => {
        if (staged) services.outbox.dispatch(staged);
      },
    };
  });
}

const OTP_CALLS = {
  owner: {
    redeem: { schema: 'OwnerOtpClaimRequest', route: accessRoutes.ownerClaim, action: 'otp.owner.claim' },
    resend: { schema: 'OwnerOtpResendRequest', route: accessRoutes.ownerResend, action: 'otp.owner.resend' },
  },
  agent: {
    redeem: { schema: 'AgentOtpVerifyRequest', route: accessRoutes.agentVerify, action: 'otp.agent.verify' },
    resend: { schema: 'AgentOtpResendRequest', route: accessRoutes.agentResend, action: 'otp.agent.resend' },
  },
} as const;

/**
 * What redeeming and resending share: the Idempotency-Key, the installation key, the body, an
 * operational installation (with an agent mailbox for the agent code) and the idempotent-run options.
 */
async function prepareOtpCall(
  ctx: AccessContext,
  services: AccessServices,
  caller: Caller,
  purpose: OtpPurpose,
  kind: 'redeem' | 'resend',
) {
  const spec = OTP_CALLS[purpose][kind];
  const key = parseIdempotencyKey(ctx.headers['idempotency-key']);
  const auth = await authenticateInstallation(ctx, services, caller);
  const body = validateBody(spec.schema, ctx.state.body);
  const installationId = auth.row.installation_id as string;
  await assertOperational(services.knex, installationId);
  if (purpose === 'agent') await assertHasAgentEmail(services, installationId);
  const options = {
    knex: services.knex,
    store: services.idempotency,
    box: services.box,
    scope: { tenant: auth.row.organization_id as string, principal: auth.row.id, key },
    route: spec.route,
    body,
    encrypt: false,
    audit: {
      actor: caller.actor,
      action: spec.action,
      details: { key_prefix: auth.row.prefix, installation_id: installationId },
    },
  };
  return { installationId, body, options };
}

async function assertHasAgentEmail(services: AccessServices, installationId: string): Promise<void> {
  const row = await services.knex('installations').where({ id: installationId }).first('agent_email');
  if (!row?.agent_email) {
    throw new GatewayError('conflict', {
      message: 'This installation has no agent_email, so there is no agent mailbox code.',
      hint: 'Only the owner code is needed: POST /owner-otp/claim.',
    });
  }
}
