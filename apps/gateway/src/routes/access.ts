import { randomUUID } from 'node:crypto';
import { errorCodes } from '@agw/contracts';
import type { Router } from '@koa/router';
import { recordAuditEvent } from '../audit.js';
import { jsonBody } from '../http/body.js';
import { toGatewayError } from '../http/error-handler.js';
import type { GatewayState } from '../http/state.js';
import type { AccessContext, Caller } from '../onboarding/context.js';
import { orgCurrent } from '../onboarding/org-current.js';
import { createOrganization } from '../onboarding/organizations.js';
import { redeemCode, resendCode } from '../onboarding/otp-handlers.js';
import { register } from '../onboarding/register.js';
import { rotateKey } from '../onboarding/rotate.js';
import type { AccessServices } from '../onboarding/services.js';

/** What the access routes need. */
export interface AccessRouteOptions {
  readonly services: AccessServices;
  readonly bodyLimitBytes: number;
}

type Handler = (ctx: AccessContext, services: AccessServices, caller: Caller) => Promise<void>;

/**
 * Registers the access endpoints of the spec: POST /register, /organizations, /owner-otp/claim,
 * /owner-otp/resend, /agent-otp/verify, /agent-otp/resend, /keys/rotate and GET /org/current.
 */
export function registerAccessRoutes(router: Router<GatewayState>, options: AccessRouteOptions): void {
  const { services } = options;
  const body = jsonBody(options.bodyLimitBytes);
  const route = (action: string, handler: Handler) => async (ctx: AccessContext) => {
    const caller: Caller = { actor: 'anonymous' };
    try {
      await handler(ctx, services, caller);
    } catch (thrown) {
      await auditRefusal(ctx, services, caller, action, thrown);
      throw thrown;
    }
  };
  router.post('/register', body, route('app.register', register));
  router.post('/organizations', body, route('organization.create', createOrganization));
  router.post(
    '/owner-otp/claim',
    body,
    route('otp.owner.claim', (c, s, a) => redeemCode(c, s, a, 'owner')),
  );
  router.post(
    '/owner-otp/resend',
    body,
    route('otp.owner.resend', (c, s, a) => resendCode(c, s, a, 'owner')),
  );
  router.post(
    '/agent-otp/verify',
    body,
    route('otp.agent.verify', (c, s, a) => redeemCode(c, s, a, 'agent')),
  );
  router.post(
    '/agent-otp/resend',
    body,
    route('otp.agent.resend', (c, s, a) => resendCode(c, s, a, 'agent')),
  );
  router.post('/keys/rotate', body, route('key.rotate', rotateKey));
  router.get('/org/current', route('org.current', orgCurrent));
}

// The error handler writes the envelope's own audit row (code, method, path); this row adds who was
// refused and what they attempted, linked by response_audit_id. Never the body, code or key.
async function auditRefusal(
  ctx: AccessContext,
  services: AccessServices,
  caller: Caller,
  action: string,
  thrown: unknown,
): Promise<void> {
  const error = toGatewayError(thrown);
  await recordAuditEvent(services.knex, ctx.state.log, {
    auditId: randomUUID(),
    requestId: ctx.state.requestId,
    actor: caller.actor,
    action,
    outcome: 'denied',
    httpStatus: errorCodes[error.code].status,
    details: {
      code: error.code,
      response_audit_id: ctx.state.auditId,
      ...(caller.keyPrefix === undefined ? {} : { key_prefix: caller.keyPrefix }),
      ...(caller.installationId === undefined ? {} : { installation_id: caller.installationId }),
    },
  });
}
