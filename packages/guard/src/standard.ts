import { buildChain, type GuardChainOptions } from './chain.js';
import { GuardConfigError } from './errors.js';
import type { Guard, GuardFacts, Principal } from './guard.js';
import { type AuditGuardOptions, auditGuard } from './guards/audit.js';
import { billingGuard } from './guards/billing.js';
import { egressGuard } from './guards/egress.js';
import { installationKeyGuard } from './guards/installation-key.js';
import { operatorApprovalGuard } from './guards/operator-approval.js';
import { type PolicyGuardOptions, policyGuard } from './guards/policy.js';
import { requiredOtpsGuard } from './guards/required-otps.js';
import { schemaGuard } from './guards/schema.js';
import { scopesGuard } from './guards/scopes.js';
import type { GuardChain } from './outcomes.js';
import type {
  ApprovalStore,
  AuditSink,
  Clock,
  EgressPolicy,
  InstallationStore,
  KeyStore,
  KillSwitchStore,
  SchemaValidator,
  WalletStore,
} from './ports.js';

/** Every port the nine guards need, plus the policy's optional settings. */
export interface StandardGuardPorts {
  readonly clock: Clock;
  readonly keys: KeyStore;
  readonly installations: InstallationStore;
  readonly validator: SchemaValidator;
  readonly approvals: ApprovalStore;
  readonly audit: AuditSink;
  readonly wallet: WalletStore;
  readonly egress: EgressPolicy;
  /** See {@link PolicyGuardOptions.killSwitch}; without it the policy guard reads the wallet snapshot. */
  readonly killSwitch?: KillSwitchStore;
  readonly rateLimiter?: PolicyGuardOptions['rateLimiter'];
  readonly rateLimits?: PolicyGuardOptions['rateLimits'];
  readonly approvalTtlSeconds?: number;
  readonly requireApproval?: PolicyGuardOptions['requireApproval'];
  /** See {@link AuditGuardOptions.deferDecision}. */
  readonly deferAuditDecision?: boolean;
}

/** The nine built-in guards, in canonical order, wired to the given ports. */
export function createStandardGuards(ports: StandardGuardPorts): Guard[] {
  const { clock, installations } = ports;
  return [
    installationKeyGuard({ keys: ports.keys, clock }),
    requiredOtpsGuard({ installations }),
    operatorApprovalGuard({ installations }),
    scopesGuard(),
    schemaGuard({ validator: ports.validator }),
    policyGuard({
      clock,
      approvals: ports.approvals,
      wallet: ports.wallet,
      ...(ports.killSwitch === undefined ? {} : { killSwitch: ports.killSwitch }),
      ...(ports.rateLimiter === undefined ? {} : { rateLimiter: ports.rateLimiter }),
      ...(ports.rateLimits === undefined ? {} : { rateLimits: ports.rateLimits }),
      ...(ports.approvalTtlSeconds === undefined ? {} : { approvalTtlSeconds: ports.approvalTtlSeconds }),
      ...(ports.requireApproval === undefined ? {} : { requireApproval: ports.requireApproval }),
    }),
    auditGuard({ sink: ports.audit, clock, deferDecision: ports.deferAuditDecision ?? false }),
    billingGuard({ wallet: ports.wallet, clock }),
    egressGuard({ policy: ports.egress }),
  ];
}

/**
 * The invoke chain of the design: {@link createStandardGuards} in a chain. `installation_key` runs
 * first, so every admitted run has a `principal`.
 */
export function createStandardChain(
  ports: StandardGuardPorts,
  options: GuardChainOptions = {},
): GuardChain<Principal> {
  return buildChain(createStandardGuards(ports), options, principalOf);
}

function principalOf(facts: GuardFacts): Principal {
  // installationKeyGuard adds the principal with every pass; a run past it without one is a bug.
  if (facts.principal === undefined) throw new GuardConfigError('A passed run has no principal.');
  return facts.principal;
}
