import {
  CAPABILITY_ID_PATTERN,
  type CapabilityContract,
  capabilityContracts,
  createValidator,
  findCapabilityContract,
  knownScopes,
} from '@agw/contracts';
import { describe, expect, it } from 'vitest';
import { createDraftParams, strictAjv, uuid } from './fixtures.js';

const validator = createValidator();
const contract = (id: string): CapabilityContract => {
  const found = findCapabilityContract(id);
  if (found === undefined) throw new Error(`missing ${id}`);
  return found;
};
const input = (id: string, params: unknown) => validator.validate(contract(id).input_schema, params).valid;
const output = (id: string, result: unknown) => validator.validate(contract(id).output_schema, result);

const SPEC_IDS = [
  'analytics.events.read',
  'analytics.stats.read',
  'assist.artifact.list',
  'assist.artifact.read',
  'billing.bank_account.save',
  'billing.document.convert_quote_to_order',
  'billing.document.convert_order_to_invoice',
  'billing.document.create_draft',
  'billing.document.facturx',
  'billing.document.pdf',
  'billing.document.xrechnung',
  'billing.document.read',
  'billing.document.list',
  'billing.document.search',
  'billing.item.search',
  'billing.payment.list',
  'billing.payment.record',
  'billing.profile.save',
  'billing.reminder.list',
  'calendar.availability.manage',
  'calendar.booking_link_template.manage',
  'calendar.booking_link.issue_secret',
  'calendar.booking_link.manage',
  'calendar.booking.manage',
  'calendar.calendar.manage',
  'calendar.event_type.manage', // not in the spec: issue 16 adds it (docs/decisions.md, calendar)
  'core.org.current.get',
  'documents.document.upload',
  'wallet.agent_budget.guard.check',
  // Beyond the spec: what quote to cash needs (issue 14, docs/decisions.md "billing").
  'billing.account.save',
  'billing.account.search',
  'billing.item.save',
  'billing.document.finalize',
  'billing.document.void',
  'billing.reminder.create',
  'billing.document.send',
  'billing.reminder.pdf', // issue 28, build 8: a reminder as a letter (docs/decisions.md, billing)
  'billing.reminder.send',
  'assist.artifact.save',
  'assist.artifact.archive',
  'analytics.property.manage',
];

describe('capability contracts', () => {
  it('cover exactly the capabilities the spec lists, each once, with valid ids', () => {
    const ids = capabilityContracts.map((c) => c.id);
    expect([...ids].sort()).toEqual([...SPEC_IDS].sort());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(new RegExp(CAPABILITY_ID_PATTERN));
  });

  it('have consistent metadata', () => {
    for (const c of capabilityContracts) {
      expect(c.version).toBe('1.0.0');
      expect(c.domain).toBe(c.id.split('.')[0]);
      expect(c.cost_credits).toMatch(/^(0|[1-9][0-9]*)(\.[0-9]+)?$/);
      expect(c.scopes.length).toBeGreaterThan(0);
      for (const scope of c.scopes) expect(Object.keys(knownScopes)).toContain(scope);
      if (!c.mutating) expect(c.risk_level).toBe('low');
      if (c.dry_run === 'required') expect(c.mutating).toBe(true);
    }
    expect(contract('documents.document.upload')).toMatchObject({ mutating: true, dry_run: 'supported' });
    expect(contract('core.org.current.get')).toMatchObject({
      risk_level: 'low',
      domain: 'core',
      mutating: false,
    });
    expect(contract('billing.payment.record')).toMatchObject({ risk_level: 'high', mutating: true });
  });

  it('every input and output schema compiles with Ajv2020 strict mode, without warnings', () => {
    const { ajv, messages } = strictAjv();
    for (const c of capabilityContracts) {
      expect(() => ajv.compile(c.input_schema), `${c.id} input`).not.toThrow();
      expect(() => ajv.compile(c.output_schema), `${c.id} output`).not.toThrow();
      expect(c.input_schema.$id, 'capability schemas are self-contained').toBeUndefined();
    }
    expect(messages).toEqual([]);
  });

  it('every input rejects unknown properties', () => {
    for (const c of capabilityContracts) {
      const result = validator.validate(c.input_schema, { __unknown__: true });
      const extra = result.valid ? [] : result.violations.filter((v) => v.keyword === 'additionalProperties');
      expect(
        extra.map((v) => v.schema_pointer),
        c.id,
      ).toEqual(['/__unknown__']);
    }
  });

  it('findCapabilityContract honours the version', () => {
    expect(findCapabilityContract('billing.document.read', '1.0.0')?.id).toBe('billing.document.read');
    expect(findCapabilityContract('billing.document.read', '2.0.0')).toBeUndefined();
    expect(findCapabilityContract('billing.document.nope')).toBeUndefined();
  });
});

describe('billing inputs', () => {
  it('create_draft: required fields, at least one line, enums and nullable fields', () => {
    const id = 'billing.document.create_draft';
    expect(input(id, createDraftParams)).toBe(true);
    expect(input(id, { ...createDraftParams, lines: [] })).toBe(false);
    expect(input(id, { ...createDraftParams, document_type: 'receipt' })).toBe(false);
    expect(input(id, { ...createDraftParams, customer_e_invoice_endpoint_scheme_id: '0204' })).toBe(true);
    expect(input(id, { ...createDraftParams, customer_e_invoice_endpoint_scheme_id: '9999' })).toBe(false);
    expect(input(id, { ...createDraftParams, currency: 'EURO' })).toBe(false);
    expect(input(id, { ...createDraftParams, title: null, due_date: null, account_id: null })).toBe(true);
    expect(input(id, { ...createDraftParams, title: 'x'.repeat(1001) })).toBe(false);
    expect(input(id, { ...createDraftParams, document_date: '2026-13-01' })).toBe(false);
    const { document_date: _omitted, ...withoutDate } = createDraftParams;
    expect(input(id, withoutDate)).toBe(false);
  });

  it('create_draft and finalize: not subject to VAT (O), and the exchange rate for the VAT total in EUR', () => {
    const draft = 'billing.document.create_draft';
    const schema = JSON.stringify(findCapabilityContract(draft)?.input_schema);
    // What describe shows an agent: every treatment, O included.
    for (const treatment of ['domestic', 'exempt', 'reverse_charge', 'export', 'not_subject_to_vat']) {
      expect(schema).toContain(`"${treatment}"`);
    }
    expect(input(draft, { ...createDraftParams, tax_treatment: 'not_subject_to_vat' })).toBe(true);
    expect(input(draft, { ...createDraftParams, tax_treatment: 'outside' })).toBe(false);
    const usd = { ...createDraftParams, currency: 'USD', vat_accounting_currency: 'EUR' };
    expect(input(draft, { ...usd, exchange_rate: 0.9215 })).toBe(true);
    expect(input(draft, { ...usd, exchange_rate: null })).toBe(true);
    expect(input(draft, { ...usd, exchange_rate: 0 })).toBe(false);
    expect(input(draft, { ...usd, exchange_rate: 0.1234567 })).toBe(false);
    const finalize = 'billing.document.finalize';
    expect(input(finalize, { document_id: uuid(1), exchange_rate: 1.08 })).toBe(true);
    expect(input(finalize, { document_id: uuid(1), exchange_rate: -1 })).toBe(false);
  });

  it('payment.record: amount must be greater than 0', () => {
    const id = 'billing.payment.record';
    expect(input(id, { document_id: uuid(1), amount: 0.01 })).toBe(true);
    expect(input(id, { document_id: uuid(1), amount: 0 })).toBe(false);
    expect(input(id, { document_id: uuid(1), amount: 10, payment_method: 'x'.repeat(101) })).toBe(false);
  });

  it('document.list: limit 1 to 100, sort fields and status set', () => {
    const id = 'billing.document.list';
    expect(input(id, { limit: 100, offset: 0, sort_by: 'total', status: 'partially_paid' })).toBe(true);
    expect(input(id, { limit: 101 })).toBe(false);
    expect(input(id, { offset: -1 })).toBe(false);
    expect(input(id, { sort_by: 'amount' })).toBe(false);
  });

  it('bank_account.save: iban 6 to 40 characters', () => {
    const id = 'billing.bank_account.save';
    const base = { display_name: 'Main', account_holder: 'Acme GmbH' };
    expect(input(id, { ...base, iban: 'DE8937' })).toBe(true);
    expect(input(id, { ...base, iban: 'DE893' })).toBe(false);
    expect(input(id, { ...base, iban: 'D'.repeat(41) })).toBe(false);
  });
});

describe('calendar, analytics and assist inputs', () => {
  it('availability rules: day 0-6 and HH:MM[:SS] times', () => {
    const id = 'calendar.availability.manage';
    const rule = { day_of_week: 1, start_time: '09:00', end_time: '17:30:00', timezone: 'Europe/Berlin' };
    expect(input(id, { operation: 'replace', rules: [rule] })).toBe(true);
    expect(input(id, { operation: 'replace', rules: [{ ...rule, day_of_week: 7 }] })).toBe(false);
    expect(input(id, { operation: 'replace', rules: [{ ...rule, start_time: '9:00' }] })).toBe(false);
    expect(input(id, { operation: 'delete' })).toBe(false);
    expect(input(id, { rules: [] })).toBe(false);
  });

  it('booking links: slug pattern, windows and notice', () => {
    const id = 'calendar.booking_link.manage';
    expect(
      input(id, { operation: 'create', slug: 'intro-call', valid_days: 365, min_notice_minutes: 10080 }),
    ).toBe(true);
    expect(input(id, { operation: 'create', slug: '-intro' })).toBe(false);
    expect(input(id, { operation: 'create', valid_days: 366 })).toBe(false);
    expect(input(id, { operation: 'create', min_notice_minutes: 10081 })).toBe(false);
    expect(input(id, { operation: 'create', slug: 'a'.repeat(97) })).toBe(false);
  });

  it('analytics: events limit 1 to 500, stats sample_limit 100 to 10000', () => {
    expect(input('analytics.events.read', { limit: 500, errors_only: true })).toBe(true);
    expect(input('analytics.events.read', { limit: 501 })).toBe(false);
    expect(input('analytics.events.read', { property_id: 'not-a-uuid' })).toBe(false);
    expect(input('analytics.stats.read', { sample_limit: 100, granularity: 'day' })).toBe(true);
    expect(input('analytics.stats.read', { sample_limit: 99 })).toBe(false);
    expect(input('analytics.stats.read', { granularity: 'week' })).toBe(false);
  });

  it('assist.artifact.read needs an artifact_id', () => {
    expect(input('assist.artifact.read', { artifact_id: uuid(5), version_limit: 50 })).toBe(true);
    expect(input('assist.artifact.read', { version_limit: 5 })).toBe(false);
    expect(input('assist.artifact.read', { artifact_id: uuid(5), version_limit: 51 })).toBe(false);
  });

  it('core.org.current.get takes an empty object only', () => {
    expect(input('core.org.current.get', {})).toBe(true);
    expect(input('core.org.current.get', { organization_id: uuid(1) })).toBe(false);
  });
});

describe('outputs', () => {
  it('convert output: status is always draft', () => {
    const result = {
      document_id: uuid(1),
      source_document_id: uuid(2),
      source_document_type: 'quote',
      document_type: 'sales_order',
      status: 'draft',
      payment_status: null,
      number: null,
      line_count: 2,
      created: true,
    };
    expect(output('billing.document.convert_quote_to_order', result)).toEqual({ valid: true });
    expect(output('billing.document.convert_quote_to_order', { ...result, status: 'open' }).valid).toBe(
      false,
    );
  });

  it('wallet guard check: the decision is result.allowed', () => {
    const result = {
      allowed: true,
      organization_id: uuid(3),
      wallet_balance_credits: '12.50',
      estimated_cost_credits: 0.1,
      policy: {
        policy_profile_id: null,
        task_cap_credits: '5',
        daily_cap_credits: null,
        monthly_cap_credits: null,
        burn_rate_hourly_cap_credits: null,
        kill_switch_enabled: false,
      },
      ledger: { hour_cost_credits: '0', today_cost_credits: '0.10', month_cost_credits: '3' },
    };
    expect(output('wallet.agent_budget.guard.check', result)).toEqual({ valid: true });
    const { allowed: _dropped, ...withoutDecision } = result;
    expect(output('wallet.agent_budget.guard.check', withoutDecision).valid).toBe(false);
  });
});
