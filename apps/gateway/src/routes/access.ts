import { randomUUID } from 'node:crypto';
import { errorCodes } from '@agw/contracts';
import type { Router } from '@koa/router';
import { recordAuditEvent } from '../audit.js';
import { jsonBody } from '../http/body.js';
import { toGatewayError } from '../http/error-handler.js';
import { anonymousBodyLimit, keyedJsonBody } from '../http/key-before-body.js';
import type { GatewayState } from '../http/state.js';
import { authenticateKey } from '../keys/authenticate.js';
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
  // The key is checked before the body is read (issue 12, finding 3); /register has no key, so its
  // body gets the anonymous limit. The check accepts a spent key too: the handler authenticates again
  // and decides (a spent key may still replay the answer that spent it).
  const anonymousBody = jsonBody(anonymousBodyLimit(options.bodyLimitBytes));
  const keyed = (kind: 'bootstrap' | 'installation', action: string) =>
    keyedJsonBody(async (authorization, ctx) => {
      try {
        await authenticateKey(services.knex, authorization, { kind, spentIsLive: true });
      } catch (thrown) {
        await auditRefusal(ctx, services, { actor: 'anonymous' }, action, thrown);
        throw thrown;
      }
      return true;
    }, options.bodyLimitBytes);
  const route = (action: string, handler: Handler) => async (ctx: AccessContext) => {
    const caller: Caller = { actor: 'anonymous' };
    try {
      await handler(ctx, services, caller);
    } catch (thrown) {
      await auditRefusal(ctx, services, caller, action, thrown);
      throw thrown;
    }
  };
  const post = (path: string, kind: 'bootstrap' | 'installation', action: string, handler: Handler) =>
    router.post(path, keyed(kind, action), route(action, handler));
  router.post('/register', anonymousBody, route('app.register', register));
  post('/organizations', 'bootstrap', 'organization.create', createOrganization);
  post('/owner-otp/claim', 'installation', 'otp.owner.claim', (c, s, a) => redeemCode(c, s, a, 'owner'));
  post('/owner-otp/resend', 'installation', 'otp.owner.resend', (c, s, a) => resendCode(c, s, a, 'owner'));
  post('/agent-otp/verify', 'installation', 'otp.agent.verify', (c, s, a) => redeemCode(c, s, a, 'agent'));
  post('/agent-otp/resend', 'installation', 'otp.agent.resend', (c, s, a) => resendCode(c, s, a, 'agent'));
  post('/keys/rotate', 'installation', 'key.rotate', rotateKey);
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
