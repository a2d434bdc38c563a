import type { Context } from 'koa';
import type { GatewayState } from '../http/state.js';

/** The Koa context of an access route. */
export type AccessContext = Context & { state: GatewayState };

/** Who is calling, filled in as soon as it is known; used for audit rows of refusals too. */
export interface Caller {
  actor: string;
  keyPrefix?: string;
  organizationId?: string;
  installationId?: string;
}

/** Route templates, part of idempotency fingerprints and audit actions. */
export const accessRoutes = {
  register: 'POST /register',
  organizations: 'POST /organizations',
  ownerClaim: 'POST /owner-otp/claim',
  ownerResend: 'POST /owner-otp/resend',
  agentVerify: 'POST /agent-otp/verify',
  agentResend: 'POST /agent-otp/resend',
  rotate: 'POST /keys/rotate',
  current: 'GET /org/current',
} as const;
