import type { GuardCapability, GuardRequest } from '@agw/guard';
import type { MetaToolContext } from '../http/exchange.js';

/** The guard chain's view of one meta-tool request. */
export function toGuardRequest(
  ctx: MetaToolContext,
  contract: GuardCapability,
  params: unknown,
  extra: { idempotencyKey?: string | undefined; approvalToken?: string | undefined } = {},
): GuardRequest {
  return {
    authorization: ctx.headers.authorization,
    capability: contract,
    params,
    requestId: ctx.state.requestId,
    sourceIp: ctx.ip,
    userAgent: ctx.headers['user-agent'],
    ...(extra.idempotencyKey === undefined ? {} : { idempotencyKey: extra.idempotencyKey }),
    ...(extra.approvalToken === undefined ? {} : { approvalToken: extra.approvalToken }),
  };
}
