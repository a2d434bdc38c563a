import type {
  AgentOtpDelivery,
  Installation,
  InstallationKey,
  OrganizationDetails,
  OrganizationsResponse,
  OrgCurrentResponse,
  OwnerOtpDelivery,
  Principal,
  RegisterRequest,
} from '@agw/contracts';
import { APPROVAL_POLLING, type ApprovalPollEvent, type ApprovalWaitOptions } from './approval.js';
import type { GatewayClient } from './client-types.js';
import { GatewayError } from './errors.js';
import { HandOverToHumanError } from './flow-errors.js';

/** Progress of `onboard`, for a spinner or a log. Never carries a key or a code. */
export type OnboardEvent =
  | { type: 'registered'; appId: string; appSlug: string }
  | { type: 'organization_created'; organizationId: string; installationId: string }
  | { type: 'owner_otp_claimed' }
  | { type: 'agent_otp_verified' }
  | { type: 'approval_wait_started'; firstPollInMs: number; giveUpInMs: number }
  | ApprovalPollEvent
  | { type: 'approved' };

/** What the owner-code callback is told. */
export interface OwnerOtpRequest {
  delivery: OwnerOtpDelivery;
  /** 1 for the first ask; 2 and 3 after the gateway said `otp_invalid`. */
  attempt: number;
}

/** Options of `client.onboard`. */
export interface OnboardOptions {
  /** The POST /register body (owner_email, optional agent_email, app). */
  register: RegisterRequest;
  /** The organization to bootstrap. */
  organization: { name: string };
  /** Asks the responsible human for the code sent to owner_email. */
  getOwnerOtp: (request: OwnerOtpRequest) => Promise<string>;
  /**
   * Returns the code sent to agent_email; required when `register.agent_email` is set. Pass
   * `createMailboxOtpReader(...)` from `@agw/client/imap` to read it over IMAP.
   */
  getAgentOtp?: (delivery: AgentOtpDelivery) => Promise<string>;
  /**
   * Called with the installation key as soon as the gateway issues it, before any step that can fail:
   * persist it here. The plaintext key cannot be recovered through the interface.
   */
  onInstallationKey?: (key: InstallationKey) => void | Promise<void>;
  onStatus?: (event: OnboardEvent) => void;
  signal?: AbortSignal;
}

/** What `onboard` returns once the operator approved the installation. */
export interface OnboardResult {
  /** The installation key (token shown once); the client already uses it. Store it safely. */
  installationKey: InstallationKey;
  organization: OrganizationDetails;
  installation: Installation;
  principal: Principal;
}

// A mistyped owner code is common; three asks, then the gateway's error is the caller's.
const OWNER_OTP_ASKS = 3;

/**
 * register → organizations (bootstrap key) → owner code → agent code (when agent_email is set) → wait for
 * operator approval per the spec's polling rule. Switches `client` to the installation key.
 * @internal Exposed as `client.onboard`.
 */
export async function onboard(client: GatewayClient, options: OnboardOptions): Promise<OnboardResult> {
  const agentEmail = options.register.agent_email ?? null;
  if (agentEmail !== null && options.getAgentOtp === undefined) {
    throw new TypeError('onboard: register.agent_email is set, so getAgentOtp is required');
  }
  const call = options.signal === undefined ? {} : { signal: options.signal };
  const registered = await client.register(options.register, call);
  options.onStatus?.({ type: 'registered', appId: registered.app.id, appSlug: registered.app.slug });

  const created = await client.createOrganization(
    {
      owner_email: options.register.owner_email,
      ...(agentEmail === null ? {} : { agent_email: agentEmail }),
      organization: options.organization,
    },
    { ...call, bootstrapKey: registered.bootstrap_key.token },
  );
  // createOrganization already switched the client to the installation key.
  await options.onInstallationKey?.(created.installation_key);
  const ids = { organizationId: created.organization.id, installationId: created.installation.id };
  options.onStatus?.({ type: 'organization_created', ...ids });
  stopOnHandOverStates(created);

  try {
    await claimOwnerCode(client, options, created.owner_otp_delivery);
    options.onStatus?.({ type: 'owner_otp_claimed' });
    if (created.agent_otp_delivery !== null && options.getAgentOtp !== undefined) {
      const otp = await options.getAgentOtp(created.agent_otp_delivery);
      await client.verifyAgentOtp({ otp }, call);
      options.onStatus?.({ type: 'agent_otp_verified' });
    }
  } catch (error) {
    throw handOverFromError(error, ids) ?? error;
  }

  options.onStatus?.({
    type: 'approval_wait_started',
    firstPollInMs: APPROVAL_POLLING.firstPollAfterMs,
    giveUpInMs: APPROVAL_POLLING.giveUpAfterMs,
  });
  const wait: ApprovalWaitOptions = {
    ...call,
    ...ids,
    ...(options.onStatus === undefined ? {} : { onPoll: options.onStatus }),
  };
  const current: OrgCurrentResponse = await client.waitForApproval(wait);
  options.onStatus?.({ type: 'approved' });
  return {
    installationKey: created.installation_key,
    organization: current.organization,
    installation: current.installation,
    principal: current.principal,
  };
}

/** Spec rules 3–4 and the Organization table: states in the /organizations answer that end onboarding. */
function stopOnHandOverStates(created: OrganizationsResponse): void {
  const ids = { organizationId: created.organization.id, installationId: created.installation.id };
  if (created.organization.is_active === false) {
    throw new HandOverToHumanError({ reason: 'organization_inactive', ...ids });
  }
  if (created.installation.operator_approval_status === 'blocked') {
    throw new HandOverToHumanError({ reason: 'blocked', ...ids });
  }
  if (created.owner_otp_delivery.status === 'suppressed') {
    throw new HandOverToHumanError({ reason: 'suppressed', delivery: 'owner', ...ids });
  }
  // The spec names only the owner delivery; a suppressed agent mail leaves the agent without its code too.
  if (created.agent_otp_delivery?.status === 'suppressed') {
    throw new HandOverToHumanError({ reason: 'suppressed', delivery: 'agent', ...ids });
  }
}

async function claimOwnerCode(client: GatewayClient, options: OnboardOptions, delivery: OwnerOtpDelivery) {
  const call = options.signal === undefined ? {} : { signal: options.signal };
  for (let attempt = 1; ; attempt += 1) {
    const otp = await options.getOwnerOtp({ delivery, attempt });
    try {
      await client.claimOwnerOtp({ otp }, call);
      return;
    } catch (error) {
      const mistyped = GatewayError.isGatewayError(error) && error.code === 'otp_invalid';
      if (!mistyped || attempt >= OWNER_OTP_ASKS) throw error;
    }
  }
}

/** Gateway errors during the code steps that mean "stop and hand over". */
function handOverFromError(
  error: unknown,
  ids: { organizationId: string; installationId: string },
): HandOverToHumanError | undefined {
  if (!GatewayError.isGatewayError(error)) return undefined;
  if (error.code === 'installation_blocked')
    return new HandOverToHumanError({ reason: 'blocked', ...ids, cause: error });
  if (error.code === 'organization_inactive') {
    return new HandOverToHumanError({ reason: 'organization_inactive', ...ids, cause: error });
  }
  return undefined;
}
