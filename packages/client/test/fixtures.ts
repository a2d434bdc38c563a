/** Wire objects shaped like the contracts' types, for the fake gateway's answers. */
import type {
  AgentOtpDelivery,
  Installation,
  OrganizationsResponse,
  OrgCurrentResponse,
  RegisterResponse,
} from '@agw/contracts';

export const BOOTSTRAP_KEY = 'agw_ak_boot1234.bootstrapsecretvalue42';
export const INSTALLATION_KEY = 'agw_ak_inst5678.installationsecretvalue99';
export const ROTATED_KEY = 'agw_ak_rot9012.rotatedsecretvalue77';
export const OWNER_OTP = '482913';
export const AGENT_OTP = '771204';

export const ORG_ID = '4f1c2d3e-1111-4aaa-8bbb-123456789abc';
export const INSTALLATION_ID = '5a2b3c4d-2222-4ccc-9ddd-223456789abc';
const TIMESTAMP = '2026-11-22T05:00:00.000Z';

export const registerResponse: RegisterResponse = {
  app: {
    id: '6b3c4d5e-3333-4eee-afff-323456789abc',
    slug: 'invoice-bot',
    name: 'Invoice Bot',
    verification_status: 'unverified',
  },
  agent_email: null,
  bootstrap_key: { token: BOOTSTRAP_KEY, expires_at: TIMESTAMP, scopes: ['platform:bootstrap'] },
};

export function installation(overrides: Partial<Installation> = {}): Installation {
  return {
    id: INSTALLATION_ID,
    agent_email: null,
    agent_email_verified_at: null,
    agent_email_verification_status: 'not_required',
    owner_email: 'owner@example.com',
    owner_verified_at: null,
    operator_approval_status: 'pending',
    scopes: ['core:read', 'billing.wallet:read'],
    ...overrides,
  };
}

export function agentDelivery(correlationId = 'c0ffee42'): AgentOtpDelivery {
  return {
    status: 'sent',
    expires_at: TIMESTAMP,
    correlation_id: correlationId,
    extraction: {
      mailbox: 'agent_email',
      imap_search: { header: 'Subject', contains: `Ref: ${correlationId}` },
      subject_contains: `Ref: ${correlationId}`,
      code_line_prefix: 'Code: ',
      code_regex: '^Code: (?<otp>[0-9]{6,8})$',
      verify_endpoint: '/agent-otp/verify',
    },
  };
}

export function organizationsResponse(overrides: Partial<OrganizationsResponse> = {}): OrganizationsResponse {
  return {
    organization: { id: ORG_ID, name: 'Acme Ltd' },
    installation: installation(),
    installation_key: { token: INSTALLATION_KEY, expires_at: TIMESTAMP, scopes: ['core:read'] },
    owner_otp_delivery: { status: 'queued', expires_at: TIMESTAMP },
    agent_otp_delivery: null,
    ...overrides,
  };
}

export function orgCurrent(
  status: Installation['operator_approval_status'],
  options: { isActive?: boolean } = {},
): OrgCurrentResponse {
  return {
    organization: {
      id: ORG_ID,
      name: 'Acme Ltd',
      short_id: 'ACME01',
      is_active: options.isActive ?? true,
      created_at: TIMESTAMP,
      updated_at: TIMESTAMP,
    },
    installation: installation({
      owner_verified_at: TIMESTAMP,
      operator_approval_status: status,
      ...(status === 'approved' ? { operator_approved_at: TIMESTAMP } : {}),
    }),
    principal: { sb_user_id: 'agent-principal-1', installation_id: INSTALLATION_ID, scopes: ['core:read'] },
  };
}

/** A `succeeded` InvokeResponse. */
export function succeeded(capabilityId: string, result: unknown, extra: Record<string, unknown> = {}) {
  return {
    interface_version: '1.0',
    status: 'succeeded',
    capability_id: capabilityId,
    resolved_version: '1.0.0',
    audit_id: `audit-${capabilityId}`,
    result,
    ...extra,
  };
}
