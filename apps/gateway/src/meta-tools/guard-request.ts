import type { GuardCapability, GuardRequest } from '@agw/guard';
import type { MetaToolRequest } from './answer.js';

/** The guard chain's view of one meta-tool request. */
export function toGuardRequest(
  call: MetaToolRequest,
  contract: GuardCapability,
  params: unknown,
  extra: { idempotencyKey?: string | undefined; approvalToken?: string | undefined } = {},
): GuardRequest {
  return {
    authorization: call.headers.authorization,
    capability: contract,
    params,
    requestId: call.requestId,
    sourceIp: call.ip,
    userAgent: call.headers['user-agent'],
    transport: call.transport,
    ...(extra.idempotencyKey === undefined ? {} : { idempotencyKey: extra.idempotencyKey }),
    ...(extra.approvalToken === undefined ? {} : { approvalToken: extra.approvalToken }),
  };
}
