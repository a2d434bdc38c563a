import {
  createAjvSchemaValidator,
  createManualClock,
  createMemoryApprovalStore,
  createMemoryAuditSink,
  createMemoryInstallationStore,
  createMemoryKeyStore,
  createMemoryRateLimiter,
  createMemoryWallet,
  createStaticEgressPolicy,
  type GuardCapability,
  type GuardContext,
  type GuardFacts,
  type GuardMode,
  type GuardRequest,
  type InstallationState,
  type Principal,
} from '../src/index.js';

export const organizationId = '6f1c2a8e-3b5d-4c7e-9a10-2b3c4d5e6f70';
export const installationId = '0d9e8f7a-6b5c-4d3e-8f21-a0b1c2d3e4f5';

/** A low-risk, paid, mutating capability with a small schema. */
export const uploadCapability: GuardCapability = {
  id: 'documents.document.upload',
  version: '1.0.0',
  risk_level: 'low',
  scopes: ['documents:write'],
  cost_credits: '0.5',
  mutating: true,
  input_schema: {
    type: 'object',
    additionalProperties: false,
    required: ['file_name', 'mime_type'],
    properties: {
      file_name: { type: 'string', minLength: 1 },
      mime_type: { type: 'string', minLength: 1 },
      size: { type: 'integer', minimum: 0 },
    },
  },
};

/** A high-risk capability: every run needs an operator approval. */
export const paymentCapability: GuardCapability = {
  id: 'billing.payment.record',
  version: '1.0.0',
  risk_level: 'high',
  scopes: ['core:write'],
  cost_credits: '0',
  mutating: true,
  input_schema: { type: 'object', properties: { amount: { type: 'number', exclusiveMinimum: 0 } } },
};

export const approvedInstallation: InstallationState = {
  installation_id: installationId,
  organization_id: organizationId,
  owner_verified_at: '2026-01-01T00:00:00.000Z',
  agent_email: 'agent@example.com',
  agent_email_verified_at: '2026-01-01T00:00:00.000Z',
  operator_approval_status: 'approved',
  organization_is_active: true,
};

/** Every in-memory port, one approved installation and its key. */
export function createWorld() {
  const clock = createManualClock('2026-03-10T12:00:00.000Z');
  const keys = createMemoryKeyStore();
  const installations = createMemoryInstallationStore();
  installations.set(approvedInstallation);
  const { token, record } = keys.issue({
    installation_id: installationId,
    organization_id: organizationId,
    scopes: ['documents:write', 'core:read', 'core:write'],
    expires_at: '2027-01-01T00:00:00.000Z',
  });
  const wallet = createMemoryWallet({ clock });
  wallet.credit(organizationId, '10');
  return {
    clock,
    keys,
    installations,
    wallet,
    token,
    keyRecord: record,
    approvals: createMemoryApprovalStore(),
    audit: createMemoryAuditSink(),
    rateLimiter: createMemoryRateLimiter({ clock }),
    validator: createAjvSchemaValidator(),
    egress: createStaticEgressPolicy(['api.example.com', '*.storage.example.net']),
  };
}

export const principal: Principal = {
  key_id: 'key-1',
  key_prefix: 'AAAAAAAAAAAA',
  kind: 'installation',
  installation_id: installationId,
  organization_id: organizationId,
  scopes: ['documents:write', 'core:read'],
};

/** A request for a guard tested alone. */
export function request(overrides: Partial<GuardRequest> = {}): GuardRequest {
  return {
    capability: uploadCapability,
    params: { file_name: 'a.pdf', mime_type: 'application/pdf' },
    ...overrides,
  };
}

/** A guard context with the facts earlier guards would have added. */
export function context(
  overrides: Partial<GuardRequest> = {},
  facts: GuardFacts = { principal },
  mode: GuardMode = 'invoke',
): GuardContext {
  return { request: request(overrides), facts, mode, trace: [] };
}
