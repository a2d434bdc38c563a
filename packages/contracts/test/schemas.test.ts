import { createValidator, type SchemaName, schemaId, schemaNames, schemas } from '@agw/contracts';
import { describe, expect, it } from 'vitest';
import {
  agentOtpDelivery,
  dryRunResponse,
  errorBody,
  installation,
  invokeResponse,
  organizationsResponse,
  registerRequest,
  strictAjv,
  ts,
  uuid,
} from './fixtures.js';

const validator = createValidator();
const valid = (name: SchemaName, value: unknown) => validator.validate(name, value).valid;

describe('named schemas', () => {
  it('all compile with Ajv2020 strict mode without a single warning', () => {
    const { ajv, messages } = strictAjv();
    for (const schema of Object.values(schemas)) ajv.addSchema(schema);
    for (const name of schemaNames) expect(ajv.getSchema(schemaId(name)), name).toBeTypeOf('function');
    expect(messages).toEqual([]);
  });

  it('each has a stable $id under the base URI', () => {
    for (const name of schemaNames) {
      expect(schemas[name].$id).toBe(`https://agent-gateway.dev/schemas/v1/${name}`);
    }
  });

  it('contain every schema the brief names', () => {
    const required = [
      'App',
      'Organization',
      'Installation',
      'BootstrapKey',
      'InstallationKey',
      'RotatedKey',
      'Principal',
      'OwnerOtpDelivery',
      'AgentOtpDelivery',
      'OtpExtraction',
      'CapabilityCatalog',
      'SearchResultItem',
      'InvokeResponse',
      'DryRunResponse',
      'ErrorEnvelope',
      'HealthResponse',
      'McpManifest',
      'McpTools',
      'CapabilityDescription',
      'RegisterRequest',
      'RegisterResponse',
      'OrganizationsRequest',
      'OrganizationsResponse',
      'OwnerOtpClaimRequest',
      'OwnerOtpClaimResponse',
      'OwnerOtpResendRequest',
      'OwnerOtpResendResponse',
      'AgentOtpVerifyRequest',
      'AgentOtpVerifyResponse',
      'AgentOtpResendRequest',
      'AgentOtpResendResponse',
      'KeysRotateRequest',
      'KeysRotateResponse',
      'OrgCurrentResponse',
      'SearchCapabilitiesRequest',
      'SearchCapabilitiesResponse',
      'DescribeRequest',
      'DryRunRequest',
      'InvokeRequest',
    ];
    expect(schemaNames).toEqual(expect.arrayContaining(required));
  });
});

describe('spec examples validate', () => {
  it.each([
    ['RegisterRequest', registerRequest],
    ['OrganizationsResponse', organizationsResponse],
    ['OrganizationsResponse', { ...organizationsResponse, agent_otp_delivery: null }],
    ['Installation', installation],
    ['InvokeResponse', invokeResponse],
    [
      'InvokeResponse',
      { ...invokeResponse, status: 'pending_approval', approval: { token: 'x' }, result: undefined },
    ],
    ['DryRunResponse', dryRunResponse],
    ['ErrorEnvelope', errorBody],
    ['OwnerOtpResendRequest', {}],
    [
      'SearchCapabilitiesRequest',
      { query: 'invoice', domain: 'billing', risk_level_max: 'medium', limit: 10 },
    ],
    ['DescribeRequest', { id: 'billing.document.create_draft', version: '1.0.0' }],
    ['InvokeRequest', { id: 'core.org.current.get', params: {} }],
    [
      'KeysRotateResponse',
      {
        key: {
          token: 'agw_ak_AbCdEfGh1234.x9',
          expires_at: ts,
          scopes: ['core:read'],
          rotated_from_key_id: uuid(4),
        },
      },
    ],
    [
      'OrgCurrentResponse',
      {
        organization: {
          id: uuid(3),
          name: 'Acme',
          short_id: 'ACME1',
          is_active: true,
          created_at: ts,
          updated_at: ts,
        },
        installation: { ...installation, operator_approval_status: 'approved', operator_approved_at: ts },
        principal: { sb_user_id: 'u_1', installation_id: uuid(1), scopes: ['core:read'] },
      },
    ],
  ] as const)('%s', (name, value) => {
    expect(validator.validate(name, value)).toEqual({ valid: true });
  });
});

const chars = (n: number, c = 'a') => c.repeat(n);

describe('boundaries', () => {
  const register = (app: Record<string, unknown>) => ({
    ...registerRequest,
    app: { ...registerRequest.app, ...app },
  });

  it('app.slug is 3 to 63 lowercase letters, digits and -', () => {
    expect(valid('RegisterRequest', register({ slug: chars(2) }))).toBe(false);
    expect(valid('RegisterRequest', register({ slug: chars(3) }))).toBe(true);
    expect(valid('RegisterRequest', register({ slug: chars(63) }))).toBe(true);
    expect(valid('RegisterRequest', register({ slug: chars(64) }))).toBe(false);
    expect(valid('RegisterRequest', register({ slug: 'Acme-bot' }))).toBe(false);
    expect(valid('RegisterRequest', register({ slug: 'acme_bot' }))).toBe(false);
  });

  it('app.name is 2 to 120 characters', () => {
    expect(valid('RegisterRequest', register({ name: chars(1) }))).toBe(false);
    expect(valid('RegisterRequest', register({ name: chars(2) }))).toBe(true);
    expect(valid('RegisterRequest', register({ name: chars(120) }))).toBe(true);
    expect(valid('RegisterRequest', register({ name: chars(121) }))).toBe(false);
  });

  it('organization.name is 3 to 160 characters on creation', () => {
    const org = (name: string) => ({ owner_email: 'o@example.com', organization: { name } });
    expect(valid('OrganizationsRequest', org(chars(2)))).toBe(false);
    expect(valid('OrganizationsRequest', org(chars(3)))).toBe(true);
    expect(valid('OrganizationsRequest', org(chars(160)))).toBe(true);
    expect(valid('OrganizationsRequest', org(chars(161)))).toBe(false);
  });

  it('search query max 200, cursor max 512, limit 1 to 50', () => {
    expect(valid('SearchCapabilitiesRequest', { query: chars(200) })).toBe(true);
    expect(valid('SearchCapabilitiesRequest', { query: chars(201) })).toBe(false);
    expect(valid('SearchCapabilitiesRequest', { cursor: chars(512) })).toBe(true);
    expect(valid('SearchCapabilitiesRequest', { cursor: chars(513) })).toBe(false);
    expect(valid('SearchCapabilitiesRequest', { limit: 0 })).toBe(false);
    expect(valid('SearchCapabilitiesRequest', { limit: 1 })).toBe(true);
    expect(valid('SearchCapabilitiesRequest', { limit: 50 })).toBe(true);
    expect(valid('SearchCapabilitiesRequest', { limit: 51 })).toBe(false);
    expect(valid('SearchCapabilitiesRequest', { limit: 2.5 })).toBe(false);
    expect(valid('SearchCapabilitiesRequest', { risk_level_max: 'extreme' })).toBe(false);
  });

  it('idempotency_key is 16 to 128 characters', () => {
    const invoke = (key: string) => ({ id: 'billing.payment.record', params: {}, idempotency_key: key });
    expect(valid('InvokeRequest', invoke(chars(15)))).toBe(false);
    expect(valid('InvokeRequest', invoke(chars(16)))).toBe(true);
    expect(valid('InvokeRequest', invoke(chars(128)))).toBe(true);
    expect(valid('InvokeRequest', invoke(chars(129)))).toBe(false);
  });

  it('owner_email must be an email and otp is required', () => {
    expect(valid('RegisterRequest', { ...registerRequest, owner_email: 'not-an-email' })).toBe(false);
    expect(valid('OwnerOtpClaimRequest', {})).toBe(false);
    expect(valid('OwnerOtpClaimRequest', { otp: '123456' })).toBe(true);
  });
});

describe('patterns and enums', () => {
  it('uuid accepts versions 1 to 5 with variant 8, 9, a, b only', () => {
    const withId = (id: string) => ({ ...installation, id });
    expect(valid('Installation', withId('3f1c2b6e-8a4d-4c1e-9b2a-0123456789ab'))).toBe(true);
    expect(valid('Installation', withId('3f1c2b6e-8a4d-1c1e-8b2a-0123456789ab'))).toBe(true);
    expect(valid('Installation', withId('3f1c2b6e-8a4d-6c1e-9b2a-0123456789ab'))).toBe(false);
    expect(valid('Installation', withId('3f1c2b6e-8a4d-4c1e-cb2a-0123456789ab'))).toBe(false);
    expect(valid('Installation', withId('3f1c2b6e8a4d4c1e9b2a0123456789ab'))).toBe(false);
  });

  it('capability id needs three lowercase segments', () => {
    expect(valid('DescribeRequest', { id: 'billing.document.read' })).toBe(true);
    expect(valid('DescribeRequest', { id: 'billing.document' })).toBe(false);
    expect(valid('DescribeRequest', { id: 'Billing.document.read' })).toBe(false);
    expect(valid('DescribeRequest', { id: 'billing.document.1read' })).toBe(false);
    expect(valid('DescribeRequest', { id: 'billing..read' })).toBe(false);
  });

  it('enums reject unknown values', () => {
    expect(valid('InvokeResponse', { ...invokeResponse, status: 'failed' })).toBe(false);
    expect(valid('Installation', { ...installation, operator_approval_status: 'maybe' })).toBe(false);
    expect(valid('OwnerOtpDelivery', { status: 'bounced', expires_at: ts })).toBe(false);
  });

  it('extraction.code_regex is an anchored line pattern with a named group otp', () => {
    // Spec deviation fixed: any string was accepted as code_regex.
    const withRegex = (code_regex: string) => ({ ...agentOtpDelivery.extraction, code_regex });
    expect(valid('OtpExtraction', withRegex('^Code: (?<otp>[0-9]{6,8})$'))).toBe(true);
    expect(valid('OtpExtraction', withRegex('^Code: (?<otp>[A-Z]{2}-[0-9]{2})$'))).toBe(true);
    expect(valid('OtpExtraction', withRegex('^Code: ([0-9]{6})$'))).toBe(false);
    expect(valid('OtpExtraction', withRegex('Code: (?<otp>[0-9]{6})'))).toBe(false);
  });

  it('timestamps and dates are checked', () => {
    expect(valid('OwnerOtpDelivery', { status: 'sent', expires_at: '2026-11-22' })).toBe(false);
    expect(valid('OwnerOtpDelivery', { status: 'sent', expires_at: '2026-11-22T05:00:00+01:00' })).toBe(true);
  });
});

describe('no other properties', () => {
  it.each([
    ['InvokeResponse', invokeResponse],
    ['DryRunResponse', dryRunResponse],
    ['ErrorEnvelope', errorBody],
    ['SearchCapabilitiesRequest', { query: 'x' }],
    ['InvokeRequest', { id: 'core.org.current.get', params: {} }],
    ['DryRunRequest', { id: 'core.org.current.get', params: {} }],
    ['KeysRotateRequest', {}],
  ] as const)('%s rejects an extra member', (name, value) => {
    expect(valid(name, value)).toBe(true);
    expect(valid(name, { ...value, extra: 1 })).toBe(false);
  });

  it('the error object inside the envelope is closed too', () => {
    expect(valid('ErrorEnvelope', { error: { ...errorBody.error, stack: 'at x.ts:1' } })).toBe(false);
  });
});
