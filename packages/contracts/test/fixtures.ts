import { addContractFormats } from '@agw/contracts';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** Valid example bodies built from the spec's field tables, shared by the tests. */

export const uuid = (n: number) => `3f1c2b6e-8a4d-4c1e-9b2a-${String(n).padStart(12, '0')}`;
export const ts = '2026-11-22T05:00:00.000Z';

export const installation = {
  id: uuid(1),
  agent_email: 'agent@example.com',
  agent_email_verified_at: null,
  agent_email_verification_status: 'pending',
  owner_email: 'owner@example.com',
  owner_user_id: uuid(2),
  owner_verified_at: null,
  operator_approval_status: 'pending',
  scopes: ['core:read', 'platform.catalog:read'],
};

export const agentOtpDelivery = {
  status: 'queued',
  expires_at: ts,
  correlation_id: 'c0ffee42',
  extraction: {
    mailbox: 'agent_email',
    imap_search: { header: 'Subject', contains: 'Ref: c0ffee42' },
    subject_contains: 'Ref: c0ffee42',
    code_line_prefix: 'Code: ',
    code_regex: '^Code: (?<otp>[0-9]{6})$',
    verify_endpoint: '/agent-otp/verify',
  },
};

export const registerRequest = {
  owner_email: 'owner@example.com',
  agent_email: 'agent@example.com',
  app: { slug: 'acme-bot', name: 'Acme Bot', homepage_url: 'https://acme.example' },
};

export const organizationsResponse = {
  organization: { id: uuid(3), name: 'Acme GmbH' },
  installation,
  installation_key: {
    token: 'agw_ak_AbCdEfGh1234.s3cr3tS3cr3tS3cr3tS3cr3tS3cr3tS3cr3t0123',
    expires_at: ts,
    scopes: ['core:read'],
  },
  owner_otp_delivery: { status: 'queued', expires_at: ts },
  agent_otp_delivery: agentOtpDelivery,
};

export const invokeResponse = {
  interface_version: '1.0',
  status: 'succeeded',
  capability_id: 'billing.document.create_draft',
  resolved_version: '1.0.0',
  audit_id: 'aud_01HZX',
  result: { document_id: uuid(9) },
  cost: { credits: '0.10' },
  replayed: false,
  warnings: [],
};

export const dryRunResponse = {
  interface_version: '1.0',
  valid: true,
  capability_id: 'billing.payment.record',
  resolved_version: '1.0.0',
  audit_id: 'aud_01HZY',
  would_require_approval: true,
  approval_reason: 'high risk',
  estimated_cost: { amount_max: 0 },
  effects: [{ kind: 'payment.create' }],
};

export const errorBody = {
  error: {
    code: 'precondition_failed',
    message: 'Onboarding is not complete for this operation.',
    retryable: false,
    audit_id: 'aud_1',
    hint: 'Redeem the owner code.',
  },
};

export const createDraftParams = {
  document_type: 'invoice',
  document_date: '2026-11-22',
  lines: [{ item_name: 'Consulting', quantity: 2, unit_price: 120 }],
  currency: 'EUR',
  customer_e_invoice_endpoint_scheme_id: null,
};

/** Ajv 2020 in strict mode with formats, recording every log line so a test can demand none. */
export function strictAjv(): { ajv: Ajv2020; messages: unknown[] } {
  const messages: unknown[] = [];
  const record = (...args: unknown[]) => messages.push(args);
  const ajv = new Ajv2020({
    strict: true,
    allErrors: true,
    logger: { log: record, warn: record, error: record },
  });
  addFormats(ajv);
  // Strict ajv refuses unknown formats: the contracts' own (display-text, decimal-6) are registered.
  addContractFormats(ajv);
  return { ajv, messages };
}
