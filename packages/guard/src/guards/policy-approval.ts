import { sha256Hex } from '../canonical-json.js';
import {
  type ChallengeDecision,
  type DenyDecision,
  deny,
  type GuardFacts,
  type GuardRequest,
  type PassDecision,
  type Principal,
  pass,
} from '../guard.js';
import { randomBase62 } from '../keys.js';
import type { ApprovalRecord, ApprovalStore } from '../ports.js';

/** Approval tokens look like `agw_ap_<40 base62>`; only their sha-256 is stored. */
export function generateApprovalToken(): string {
  return `agw_ap_${randomBase62(40)}`;
}

/** Creates a pending approval bound to capability id, version and params hash; answers the challenge. */
export async function createApprovalChallenge(input: {
  readonly approvals: ApprovalStore;
  readonly principal: Principal;
  readonly request: GuardRequest;
  readonly paramsHash: string;
  readonly reason: string;
  readonly now: Date;
  readonly approvalTtlSeconds: number;
  /** The run's unit of work, for the store. */
  readonly unit?: unknown;
}): Promise<ChallengeDecision> {
  const { approvals, principal, request, paramsHash, reason, now, unit } = input;
  const token = generateApprovalToken();
  const tokenHash = sha256Hex(token);
  // Dedupe: while the same installation's approval of the same capability, version and params is
  // still pending, a repeated invoke answers that approval (same approval_id) with a fresh token
  // instead of queueing another one for the operator. Only the newest token is valid afterwards:
  // the store keeps one token hash per approval, and the agent holds the newest answer anyway.
  const renewed = await approvals.renewPending?.(
    {
      installation_id: principal.installation_id,
      capability_id: request.capability.id,
      capability_version: request.capability.version,
      params_hash: paramsHash,
    },
    tokenHash,
    now.toISOString(),
    unit,
  );
  if (renewed !== undefined) return challengeFor(renewed, token);
  const record = await approvals.create(
    {
      token_hash: tokenHash,
      organization_id: principal.organization_id,
      installation_id: principal.installation_id,
      capability_id: request.capability.id,
      capability_version: request.capability.version,
      params_hash: paramsHash,
      params: request.params,
      reason,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + input.approvalTtlSeconds * 1000).toISOString(),
    },
    unit,
  );
  return challengeFor(record, token);
}

function challengeFor(record: ApprovalRecord, token: string): ChallengeDecision {
  return {
    outcome: 'challenge',
    code: 'pending_approval',
    approval: {
      approval_id: record.approval_id,
      approval_token: token,
      status: 'pending',
      reason: record.reason,
      capability_id: record.capability_id,
      capability_version: record.capability_version,
      params_hash: record.params_hash,
      expires_at: record.expires_at,
    },
  };
}

const invalid = (message: string): DenyDecision => deny('approval_invalid', message);

/**
 * Checks a presented approval token against this exact request and consumes it once. A token the
 * operator has not decided yet is answered with the same pending challenge (no new approval).
 */
export async function redeemApprovalToken(input: {
  readonly approvals: ApprovalStore;
  readonly token: string;
  readonly principal: Principal;
  readonly request: GuardRequest;
  readonly paramsHash: string;
  readonly now: Date;
  readonly base: GuardFacts;
  /** The run's unit of work, for the store. */
  readonly unit?: unknown;
}): Promise<PassDecision | DenyDecision | ChallengeDecision> {
  const { approvals, token, principal, request, paramsHash, now, unit } = input;
  const record = await approvals.findByTokenHash(sha256Hex(token), unit);
  if (record === undefined || record.installation_id !== principal.installation_id) {
    return invalid('The approval token is unknown.');
  }
  const sameRun =
    record.organization_id === principal.organization_id &&
    record.capability_id === request.capability.id &&
    record.capability_version === request.capability.version &&
    record.params_hash === paramsHash;
  if (!sameRun) return invalid('The approval token belongs to another capability, version or params.');
  if (Date.parse(record.expires_at) <= now.getTime()) return invalid('The approval token has expired.');
  if (record.status === 'denied') return invalid('The operator denied this approval.');
  if (record.consumed_at !== null) return invalid('The approval token was already used.');
  if (record.status === 'pending') return challengeFor(record, token);
  if (!(await approvals.consume(record.approval_id, now.toISOString(), unit))) {
    return invalid('The approval token was already used.');
  }
  return pass({
    ...input.base,
    approvalRequired: true,
    approvalReason: record.reason,
    approvalId: record.approval_id,
  });
}
