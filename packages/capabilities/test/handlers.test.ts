import { randomUUID } from 'node:crypto';
import { createValidator } from '@agw/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CapabilityContext,
  capabilityDomains,
  capabilityHandlers,
  capabilityMigrations,
  coreOrgCurrentGetHandler,
  findCapabilityHandler,
  type WalletView,
  walletAgentBudgetGuardCheckHandler,
} from '../src/index.js';
import { createTestDatabase, recordingMail, type TestDatabase } from './helpers/pglite-sql.js';

const ORG = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';
const validator = createValidator();

function wallet(overrides: Partial<WalletView['policy']> = {}, balance = '10'): WalletView {
  return {
    organization_id: ORG,
    balance_credits: balance,
    policy: {
      policy_profile_id: null,
      task_cap_credits: null,
      daily_cap_credits: null,
      monthly_cap_credits: null,
      burn_rate_hourly_cap_credits: null,
      kill_switch_enabled: false,
      ...overrides,
    },
    spent: { hour_credits: '1', today_credits: '2.5', month_credits: '7' },
  };
}

const INSTALLATION = 'e1b0c1d2-3e4f-4a5b-8c6d-7e8f9a0b1c2d';
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
  await database.seed(ORG, INSTALLATION);
});
afterAll(() => database.db.close());

function context(view: WalletView): CapabilityContext {
  return {
    organizationId: ORG,
    installationId: INSTALLATION,
    now: new Date('2026-11-22T06:00:00Z'),
    sql: database.sql,
    ids: { uuid: randomUUID },
    signal: new AbortController().signal,
    wallet: { getSnapshot: async () => view },
    fetch: async () => {
      throw new Error('these handlers reach no network');
    },
    mail: recordingMail(),
  };
}

const check = (estimate: number, view: WalletView) =>
  walletAgentBudgetGuardCheckHandler.handle(
    { capability_id: 'core.org.current.get', estimated_cost_credits: estimate, window: 'task' },
    context(view),
  );

describe('wallet.agent_budget.guard.check', () => {
  it('returns exactly the spec shape, valid against the output schema', async () => {
    const result = await check(0.25, wallet({ daily_cap_credits: '5' }));
    expect(result).toEqual({
      allowed: true,
      organization_id: ORG,
      wallet_balance_credits: '10',
      estimated_cost_credits: 0.25,
      policy: {
        policy_profile_id: null,
        task_cap_credits: null,
        daily_cap_credits: '5',
        monthly_cap_credits: null,
        burn_rate_hourly_cap_credits: null,
        kill_switch_enabled: false,
      },
      ledger: { hour_cost_credits: '1', today_cost_credits: '2.5', month_cost_credits: '7' },
      reason: null,
    });
    const schema = walletAgentBudgetGuardCheckHandler.contract.output_schema;
    expect(validator.validate(schema, result).valid).toBe(true);
  });

  it('allows exactly the balance and refuses one micro-credit more', async () => {
    expect((await check(10, wallet())).allowed).toBe(true);
    const over = await check(10.000001, wallet());
    expect(over.allowed).toBe(false);
    expect(over.reason).toMatch(/wallet balance/);
  });

  it('counts what was spent against the daily, monthly and hourly caps', async () => {
    expect((await check(2.5, wallet({ daily_cap_credits: '5' }))).allowed).toBe(true);
    expect((await check(2.6, wallet({ daily_cap_credits: '5' }))).reason).toMatch(/daily cap/);
    expect((await check(1.1, wallet({ monthly_cap_credits: '8' }))).reason).toMatch(/monthly cap/);
    expect((await check(0.6, wallet({ burn_rate_hourly_cap_credits: '1.5' }))).reason).toMatch(/burn-rate/);
    expect((await check(3, wallet({ task_cap_credits: '2' }))).reason).toMatch(/task cap/);
  });

  it('refuses everything, even a zero estimate, when the kill switch is on', async () => {
    const result = await check(0, wallet({ kill_switch_enabled: true }));
    expect(result.allowed).toBe(false);
    expect(result.reason).toMatch(/kill switch/);
  });

  it('treats 0.1 + 0.2 exactly (no float drift)', async () => {
    const view = {
      ...wallet({ daily_cap_credits: '0.3' }),
      spent: { hour_credits: '0', today_credits: '0.1', month_credits: '0' },
    };
    expect((await check(0.2, view)).allowed).toBe(true);
  });
});

describe('core.org.current.get', () => {
  it('returns the organization of the context, valid against its output schema', async () => {
    const result = await coreOrgCurrentGetHandler.handle({}, context(wallet()));
    expect(result.organization).toEqual({
      id: ORG,
      name: 'Acme',
      short_id: 'ACME2345',
      is_active: true,
      created_at: '2026-11-01T00:00:00.000Z',
      updated_at: '2026-11-02T00:00:00.000Z',
    });
    expect(validator.validate(coreOrgCurrentGetHandler.contract.output_schema, result).valid).toBe(true);
  });

  it('fails when the organization is gone', async () => {
    const ctx = { ...context(wallet()), organizationId: '00000000-0000-4000-8000-000000000000' };
    await expect(coreOrgCurrentGetHandler.handle({}, ctx)).rejects.toThrow(/no longer exists/);
  });
});

describe('registry', () => {
  it('collects every domain: each handler once, migrations uniquely named', () => {
    expect(capabilityDomains.flatMap((domain) => domain.handlers)).toEqual([...capabilityHandlers]);
    const names = capabilityMigrations.map((migration) => migration.name);
    expect(new Set(names).size).toBe(names.length);
    // Published under this name by the gateway: deployments that applied it must see it as applied.
    expect(names).toContain('20261123010000_create_documents');
  });

  it('holds exactly the handled capabilities and finds them by id and version', () => {
    expect(capabilityHandlers.map((h) => h.contract.id)).toEqual([
      'analytics.property.manage',
      'analytics.events.read',
      'analytics.stats.read',
      'assist.artifact.save',
      'assist.artifact.archive',
      'assist.artifact.list',
      'assist.artifact.read',
      'billing.profile.save',
      'billing.bank_account.save',
      'billing.account.save',
      'billing.account.search',
      'billing.item.save',
      'billing.item.search',
      'billing.document.create_draft',
      'billing.document.read',
      'billing.document.list',
      'billing.document.search',
      'billing.document.convert_quote_to_order',
      'billing.document.convert_order_to_invoice',
      'billing.document.finalize',
      'billing.document.void',
      'billing.payment.record',
      'billing.payment.list',
      'billing.reminder.create',
      'billing.reminder.list',
      'billing.reminder.pdf',
      'billing.reminder.send',
      'billing.document.pdf',
      'billing.document.xrechnung',
      'billing.document.facturx',
      'billing.document.send',
      'calendar.calendar.manage',
      'calendar.availability.manage',
      'calendar.event_type.manage',
      'calendar.booking_link_template.manage',
      'calendar.booking_link.manage',
      'calendar.booking_link.issue_secret',
      'calendar.booking.manage',
      'core.org.current.get',
      'documents.document.upload',
      'wallet.agent_budget.guard.check',
    ]);
    expect(findCapabilityHandler('core.org.current.get', '1.0.0')).toBe(coreOrgCurrentGetHandler);
    expect(findCapabilityHandler('core.org.current.get', '9.0.0')).toBeUndefined();
  });
});
