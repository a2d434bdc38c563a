import { randomUUID } from 'node:crypto';
// Quote to cash over HTTP with the typed SDK: profile, bank account (operator-approved), customer,
// item, quote → sales order → invoice, finalize (number from the profile's pattern, snapshot frozen),
// partial payment, overpayment refused naming the balance, payment → paid; list/search; credit note,
// void with approval, reminders; another organization sees none of it.

import type { GatewayError } from '@agw/client';
import { createAdminClient } from '@agw/client/admin';
import { beforeAll, describe, expect, it } from 'vitest';
import { billingClient, refusal } from './helpers/billing.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';

const gateway = useGateway();
let billing: ReturnType<typeof billingClient>;
let key: string;
let customerId: string;
let profileId: string;
const year = new Date().getUTCFullYear();
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  const installation = await approvedInstallation(gateway, '100');
  key = installation.key;
  billing = billingClient(gateway, key);
  const bank = await billing.run('billing.bank_account.save', {
    display_name: 'Main account',
    account_holder: 'Acme GmbH',
    iban: 'DE89 3704 0044 0532 0130 00',
    bic: 'COBADEFFXXX',
  });
  const profile = await billing.run('billing.profile.save', {
    display_name: 'Acme GmbH',
    issuer_name: 'Acme GmbH',
    issuer_country: 'DE',
    issuer_vat_id: 'DE123456789',
    issuer_city: 'Berlin',
    default_bank_account_id: bank.bank_account.id,
    number_patterns: { invoice: 'RE-{YYYY}-{SEQ:5}' },
  });
  profileId = profile.profile.id;
  const customer = await billing.run('billing.account.save', {
    name: 'Müller Bau GmbH',
    country_code: 'DE',
    vat_id: 'DE987654321',
    email: 'buchhaltung@mueller-bau.example',
    payment_terms_days: 14,
    buyer_reference: '04011000-12345-67',
  });
  customerId = customer.account.id;
});

describe('quote to cash', () => {
  it('runs quote → order → invoice → finalize → partial payment → payment → paid with exact amounts', async () => {
    const { run } = billing;
    expect(profileId).toMatch(/-/);
    const item = await run('billing.item.save', {
      name: 'Consulting hour',
      item_type: 'service',
      unit_price: 120,
      unit: 'h',
      tax_percent: 19,
    });
    const found = await run('billing.item.search', { query: 'consult' });
    expect(found.records.map((r) => r.id)).toContain(item.item.id);

    const quote = await run('billing.document.create_draft', {
      document_type: 'quote',
      document_date: today,
      account_id: customerId,
      title: 'Website relaunch',
      lines: [
        { item_name: 'Consulting hour', item_id: item.item.id, quantity: 7.5, unit_price: 120 },
        { item_name: 'Handbook', quantity: 3, unit_price: 19.99, tax_percent: 7, discount_amount: 2.5 },
      ],
    });
    // 7.5 × 120 = 900.00 at 19 % (item's rate) → 171.00; 3 × 19.99 − 2.50 = 57.47 at 7 % → 4.02.
    expect(quote).toMatchObject({
      status: 'draft',
      number: null,
      currency: 'EUR',
      line_count: 2,
      totals: {
        subtotal: 959.97,
        discount_total: 2.5,
        tax_total: 175.02,
        reverse_charge_tax_total: 0,
        total: 1132.49,
        balance: 1132.49,
      },
      tax_treatment: { type: 'domestic', customer_tax_id: 'DE987654321', customer_country_code: 'DE' },
    });

    const order = await run('billing.document.convert_quote_to_order', {
      source_document_id: quote.document_id,
    });
    expect(order).toMatchObject({
      document_type: 'sales_order',
      source_document_type: 'quote',
      status: 'draft',
      created: true,
      line_count: 2,
    });
    const again = await run('billing.document.convert_quote_to_order', {
      source_document_id: quote.document_id,
    });
    expect(again).toMatchObject({ document_id: order.document_id, created: false });

    const draft = await run('billing.document.convert_order_to_invoice', {
      source_document_id: order.document_id,
    });
    expect(draft).toMatchObject({
      document_type: 'invoice',
      status: 'draft',
      payment_status: 'unpaid',
      number: null,
    });

    const finalized = await run('billing.document.finalize', { document_id: draft.document_id });
    expect(finalized.number).toMatch(new RegExp(`^RE-${year}-\\d{5}$`));
    // The customer's payment terms (14 days) from the invoice's date.
    const due = new Date(`${today}T00:00:00Z`);
    due.setUTCDate(due.getUTCDate() + 14);
    expect(finalized.document.due_date).toBe(due.toISOString().slice(0, 10));
    expect(finalized.document).toMatchObject({
      status: 'open',
      total: 1132.49,
      balance: 1132.49,
      counterparty_name: 'Müller Bau GmbH',
    });

    // The customer renamed later: the issued invoice keeps what it was issued with.
    await run('billing.account.save', { id: customerId, name: 'Müller Bau AG' });
    const read = await run('billing.document.read', { document_id: draft.document_id });
    expect(read.document.counterparty_name).toBe('Müller Bau GmbH');
    expect(read.lines.map((l) => [l.item_name, l.line_total, l.tax_percent])).toEqual([
      ['Consulting hour', 900, 19],
      ['Handbook', 57.47, 7],
    ]);
    const stored = await gateway.knex('billing_documents').where({ id: draft.document_id }).first();
    expect(stored.issuer).toMatchObject({ issuer_name: 'Acme GmbH', issuer_vat_id: 'DE123456789' });
    expect(stored.bank_account).toMatchObject({ iban: 'DE89370400440532013000' });
    expect(stored.counterparty).toMatchObject({ name: 'Müller Bau GmbH', vat_id: 'DE987654321' });
    expect(stored.buyer_reference).toBe('04011000-12345-67');

    const refinalize = await refusal(run('billing.document.finalize', { document_id: draft.document_id }));
    expect(refinalize.code).toBe('conflict');

    const partial = await run('billing.payment.record', {
      document_id: draft.document_id,
      amount: 500,
      payment_method: 'sepa',
    });
    expect(partial).toMatchObject({
      document: { status: 'partially_paid', payment_status: 'partial', balance: 632.49, paid_at: null },
      paid_total: 500,
      next_balance: 632.49,
    });
    const over = await refusal(
      run('billing.payment.record', { document_id: draft.document_id, amount: 632.5 }),
    );
    expect(over.code).toBe('validation_failed');
    expect(over.schemaPointer).toBe('/params/amount');
    expect(over.message).toMatch(/632\.49 EUR/);

    const rest = await run('billing.payment.record', { document_id: draft.document_id, amount: 632.49 });
    expect(rest.document).toMatchObject({ status: 'paid', payment_status: 'paid', balance: 0 });
    expect(rest.document.paid_at).toEqual(expect.any(String));
    expect(rest.paid_total).toBe(1132.49);

    const closed = await refusal(
      run('billing.payment.record', { document_id: draft.document_id, amount: 1 }),
    );
    expect(closed.code).toBe('conflict');

    const payments = await run('billing.payment.list', { document_id: draft.document_id });
    expect(payments.records.map((p) => p.amount).sort()).toEqual([500, 632.49]);
    const paid = await run('billing.document.list', { open_filter: 'paid', document_type: 'invoice' });
    expect(paid.records.map((r) => r.id)).toContain(draft.document_id);
    const open = await run('billing.document.list', { open_filter: 'open' });
    expect(open.records.map((r) => r.id)).not.toContain(draft.document_id);
    const byNumber = await run('billing.document.search', { search: finalized.number });
    expect(byNumber.records.map((r) => r.id)).toEqual([draft.document_id]);
    const byName = await run('billing.document.search', {
      search: 'müller relaunch',
      document_type: 'quote',
    });
    expect(byName.records.map((r) => r.id)).toEqual([quote.document_id]);
  });

  it('answers create_draft and finalize over plain HTTP as the README shows with curl', async () => {
    const post = (id: string, params: Record<string, unknown>, idem: string) =>
      gateway.client.post('/mcp/invoke', { id, params, idempotency_key: idem }, { idem: null, key });
    const created = await post(
      'billing.document.create_draft',
      {
        document_type: 'invoice',
        document_date: `${year}-03-01`,
        account_id: customerId,
        lines: [{ item_name: 'Hosting', quantity: 1, unit_price: 49, tax_percent: 19 }],
      },
      `curl-draft-${Date.now()}`,
    );
    expect(created.status).toBe(200);
    expect(created.json.result).toMatchObject({ totals: { total: 58.31 } });
    // Payment terms of the customer: 14 days.
    const finalized = await post(
      'billing.document.finalize',
      { document_id: created.json.result.document_id },
      `curl-fin-${Date.now()}`,
    );
    expect(finalized.json.result.document).toMatchObject({ status: 'open', due_date: `${year}-03-15` });
    const payment = await post(
      'billing.payment.record',
      { document_id: created.json.result.document_id, amount: 58.31 },
      `curl-pay-${Date.now()}`,
    );
    expect(payment.json.status).toBe('pending_approval');
  });

  it('refuses a payment on a draft and one with more digits than the currency', async () => {
    const draft = await billing.run('billing.document.create_draft', {
      document_type: 'invoice',
      document_date: today,
      lines: [{ item_name: 'X', quantity: 1, unit_price: 10 }],
    });
    expect(
      (await refusal(billing.run('billing.payment.record', { document_id: draft.document_id, amount: 1 })))
        .code,
    ).toBe('conflict');
    await billing.run('billing.document.finalize', { document_id: draft.document_id });
    const digits = await refusal(
      billing.run('billing.payment.record', { document_id: draft.document_id, amount: 0.005 }),
    );
    expect(digits.schemaPointer).toBe('/params/amount');
  });

  it('refuses a payment past the most payments a document keeps (its read lists them all)', async () => {
    const draft = await billing.run('billing.document.create_draft', {
      document_type: 'invoice',
      document_date: today,
      lines: [{ item_name: 'Instalments', quantity: 1, unit_price: 5000 }],
    });
    const { document } = await billing.run('billing.document.finalize', { document_id: draft.document_id });
    await billing.run('billing.payment.record', { document_id: draft.document_id, amount: 1 });
    const stored = await gateway.knex('billing_documents').where({ id: draft.document_id }).first();
    // 999 more instalments written directly: the bound is 1000, the handler counts what is stored.
    await gateway.knex('billing_payments').insert(
      Array.from({ length: 999 }, () => ({
        id: randomUUID(),
        organization_id: stored.organization_id,
        document_id: stored.id,
        account_id: stored.account_id,
        status: 'completed',
        amount: '0.01',
        currency: stored.currency,
        payment_date: today,
        created_at: new Date(),
      })),
    );
    const refused = await refusal(
      billing.run('billing.payment.record', { document_id: draft.document_id, amount: 1 }),
    );
    expect(refused.code).toBe('conflict');
    expect(refused.message).toContain(`${document.number} already holds 1000 payments`);
    const read = await billing.run('billing.document.read', { document_id: draft.document_id });
    expect(read.payments).toHaveLength(1000);
  });

  it('a credit note for the full amount voids an unpaid invoice; void of a paid one is refused', async () => {
    const { run } = billing;
    const invoice = await run('billing.document.create_draft', {
      document_type: 'invoice',
      document_date: today,
      account_id: customerId,
      lines: [{ item_name: 'Setup', quantity: 1, unit_price: 100, tax_percent: 19 }],
    });
    const issued = await run('billing.document.finalize', { document_id: invoice.document_id });
    const credit = await run('billing.document.create_draft', {
      document_type: 'credit_note',
      document_date: today,
      account_id: customerId,
      corrects_document_id: invoice.document_id,
      lines: [{ item_name: 'Setup (credited)', quantity: 1, unit_price: 100, tax_percent: 19 }],
    });
    expect(credit.totals.total).toBe(119);
    const credited = await run('billing.document.finalize', { document_id: credit.document_id });
    expect(credited.number).toMatch(new RegExp(`^CN-${year}-\\d{5}$`));
    expect(credited.document).toMatchObject({ status: 'closed', balance: 0 });
    const after = await run('billing.document.read', { document_id: invoice.document_id });
    expect(after.document).toMatchObject({ number: issued.number, status: 'void', balance: 0 });

    const paidInvoice = await run('billing.document.create_draft', {
      document_type: 'invoice',
      document_date: today,
      lines: [{ item_name: 'Setup', quantity: 1, unit_price: 10 }],
    });
    await run('billing.document.finalize', { document_id: paidInvoice.document_id });
    await run('billing.payment.record', { document_id: paidInvoice.document_id, amount: 5 });
    expect((await refusal(run('billing.document.void', { document_id: paidInvoice.document_id }))).code).toBe(
      'conflict',
    );
  });

  it('voids a draft (no number taken) and refuses to finalize it afterwards', async () => {
    const draft = await billing.run('billing.document.create_draft', {
      document_type: 'invoice',
      document_date: today,
      lines: [{ item_name: 'Not needed', quantity: 1, unit_price: 10 }],
    });
    const voided = await billing.run('billing.document.void', { document_id: draft.document_id });
    expect(voided).toMatchObject({ previous_status: 'draft', status: 'void', number: null });
    const read = await billing.run('billing.document.read', { document_id: draft.document_id });
    expect(read.document).toMatchObject({ status: 'void', number: null, balance: 0 });
    const finalize = await refusal(
      billing.run('billing.document.finalize', { document_id: draft.document_id }),
    );
    expect(finalize.code).toBe('conflict');
    const again = await refusal(billing.run('billing.document.void', { document_id: draft.document_id }));
    expect(again.message).toMatch(/already void/);
  });

  it('refuses a payment on a void and on a cancelled invoice, naming its status', async () => {
    const issue = async () => {
      const draft = await billing.run('billing.document.create_draft', {
        document_type: 'invoice',
        document_date: today,
        lines: [{ item_name: 'Gone', quantity: 1, unit_price: 10 }],
      });
      return (await billing.run('billing.document.finalize', { document_id: draft.document_id })).document;
    };
    const voided = await issue();
    await billing.run('billing.document.void', { document_id: voided.id });
    const onVoid = await refusal(
      billing.run('billing.payment.record', { document_id: voided.id, amount: 1 }),
    );
    expect(onVoid).toMatchObject({ status: 409, code: 'conflict' });
    expect(onVoid.message).toBe(`Invoice ${voided.number} is void and takes no payments.`);
    // No capability cancels an invoice; an imported one can arrive cancelled.
    const cancelled = await issue();
    await gateway.knex('billing_documents').where({ id: cancelled.id }).update({ status: 'cancelled' });
    const onCancelled = await refusal(
      billing.run('billing.payment.record', { document_id: cancelled.id, amount: 1 }),
    );
    expect(onCancelled.message).toBe(`Invoice ${cancelled.number} is cancelled and takes no payments.`);
    const payments = await billing.run('billing.payment.list', { document_id: cancelled.id });
    expect(payments.records).toEqual([]);
    const rows = await gateway.knex('billing_documents').whereIn('id', [voided.id, cancelled.id]);
    expect(rows.map((row) => Number(row.paid_total))).toEqual([0, 0]);
  });

  it('twelve payments of 10.00 at once on a 100.00 invoice: ten recorded, paid once, no overpayment', async () => {
    const draft = await billing.run('billing.document.create_draft', {
      document_type: 'invoice',
      document_date: today,
      lines: [{ item_name: 'Concurrent', quantity: 1, unit_price: 100 }],
    });
    await billing.run('billing.document.finalize', { document_id: draft.document_id });
    // payment.record is risk high: each of the twelve is approved first (distinct references, so
    // twelve approvals), then all twelve approved invokes race.
    const admin = createAdminClient({ baseUrl: gateway.url, operatorKey: gateway.operatorKey });
    const calls: { params: { document_id: string; amount: number; reference: string }; token: string }[] = [];
    for (let i = 0; i < 12; i += 1) {
      const params = { document_id: draft.document_id, amount: 10, reference: `transfer-${i}` };
      const pending = await billing.client.invoke('billing.payment.record', params);
      const approval = pending.approval as { approval_id: string; approval_token: string };
      await admin.approveApproval(approval.approval_id);
      calls.push({ params, token: approval.approval_token });
    }
    const outcomes = await Promise.allSettled(
      calls.map(async ({ params, token }) => {
        const answer = await billing.client.invoke('billing.payment.record', params, {
          approvalToken: token,
        });
        if (answer.status !== 'succeeded') throw new Error(`answered ${answer.status}`);
        return (answer as { result: { paid_total: number; document: { status: string } } }).result;
      }),
    );
    const recorded = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    expect(recorded).toHaveLength(10);
    // Each recorded payment saw the one before it: the paid totals are 10, 20, …, 100, each once.
    expect(recorded.map((r) => r.paid_total).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 10 }, (_, i) => (i + 1) * 10),
    );
    expect(recorded.filter((r) => r.document.status === 'paid')).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') {
        const error = outcome.reason as GatewayError;
        // Refused either as more than the balance or as an invoice already paid.
        expect(['validation_failed', 'conflict']).toContain(error.code);
      }
    }
    const read = await billing.run('billing.document.read', { document_id: draft.document_id });
    expect(read.document).toMatchObject({ status: 'paid', payment_status: 'paid', balance: 0 });
    expect(read.payments).toHaveLength(10);
    const stored = await gateway.knex('billing_documents').where({ id: draft.document_id }).first();
    expect(Number(stored.paid_total)).toBe(100);
  });

  it('voids an issued invoice without payments only after an operator approves (risk high)', async () => {
    const invoice = await billing.run('billing.document.create_draft', {
      document_type: 'invoice',
      document_date: today,
      lines: [{ item_name: 'Typo', quantity: 1, unit_price: 10 }],
    });
    const issued = await billing.run('billing.document.finalize', { document_id: invoice.document_id });
    const pending = await billing.client.invoke('billing.document.void', {
      document_id: invoice.document_id,
    });
    expect(pending.status).toBe('pending_approval');
    expect(
      (await billing.run('billing.document.read', { document_id: invoice.document_id })).document.status,
    ).toBe('open');
    const voided = await billing.run('billing.document.void', {
      document_id: invoice.document_id,
      reason: 'typo',
    });
    expect(voided).toMatchObject({ previous_status: 'open', status: 'void', number: issued.number });
  });

  it('creates reminders level by level for an overdue invoice, refuses one not yet due, paid or draft', async () => {
    const { run } = billing;
    const invoice = await run('billing.document.create_draft', {
      document_type: 'invoice',
      document_date: '2026-01-05',
      due_date: '2026-01-19',
      account_id: customerId,
      lines: [{ item_name: 'Maintenance', quantity: 1, unit_price: 200, tax_percent: 19 }],
    });
    const notIssued = await refusal(
      run('billing.reminder.create', { invoice_id: invoice.document_id, reminder_date: '2026-02-01' }),
    );
    expect(notIssued.code).toBe('conflict');
    await run('billing.document.finalize', { document_id: invoice.document_id });
    const early = await refusal(
      run('billing.reminder.create', { invoice_id: invoice.document_id, reminder_date: '2026-01-19' }),
    );
    expect(early.message).toMatch(/not overdue/);
    const levels: string[] = [];
    for (const date of ['2026-01-26', '2026-02-09', '2026-02-23', '2026-03-09']) {
      const { reminder } = await run('billing.reminder.create', {
        invoice_id: invoice.document_id,
        reminder_date: date,
        fee_amount: 5,
      });
      levels.push(reminder.reminder_level);
      expect(reminder).toMatchObject({
        status: 'draft',
        invoice_balance_at_reminder: 238,
        fee_amount: 5,
        due_date_at_reminder: '2026-01-19',
      });
    }
    expect(levels).toEqual(['payment_reminder', 'first_reminder', 'second_reminder', 'final_notice']);
    const fifth = await refusal(
      run('billing.reminder.create', { invoice_id: invoice.document_id, reminder_date: '2026-03-30' }),
    );
    expect(fifth.message).toMatch(/final notice/);
    await run('billing.payment.record', { document_id: invoice.document_id, amount: 238 });
    const listed = await run('billing.reminder.list', { invoice_id: invoice.document_id });
    expect(listed.records).toHaveLength(4);
    expect(new Set(listed.records.map((r) => r.status))).toEqual(new Set(['paid_after_reminder']));
    const paid = await refusal(
      run('billing.reminder.create', { invoice_id: invoice.document_id, reminder_date: '2026-04-01' }),
    );
    expect(paid.code).toBe('conflict');
  });

  it('states interest and a fee on a reminder without changing the invoice; refuses a third decimal', async () => {
    const invoice = await billing.run('billing.document.create_draft', {
      document_type: 'invoice',
      document_date: '2026-02-02',
      due_date: '2026-02-16',
      lines: [{ item_name: 'Support', quantity: 1, unit_price: 500, tax_percent: 19 }],
    });
    const issued = await billing.run('billing.document.finalize', { document_id: invoice.document_id });
    const digits = await refusal(
      billing.run('billing.reminder.create', {
        invoice_id: invoice.document_id,
        reminder_date: '2026-03-02',
        interest_amount: 4.125,
      }),
    );
    expect(digits.schemaPointer).toBe('/params/interest_amount');
    const { reminder } = await billing.run('billing.reminder.create', {
      invoice_id: invoice.document_id,
      reminder_date: '2026-03-02',
      fee_amount: 5,
      interest_amount: 4.12,
    });
    expect(reminder).toMatchObject({
      reminder_level: 'payment_reminder',
      interest_amount: 4.12,
      fee_amount: 5,
      invoice_balance_at_reminder: 595,
    });
    // The profile is de-DE (the default): the reminder speaks German, in German notation.
    expect(reminder.subject).toBe(`Zahlungserinnerung: Rechnung ${issued.number}`);
    expect(reminder.body_snapshot?.replace(/\u00a0/g, ' ')).toMatch(
      new RegExp(
        `^Unsere Rechnung ${issued.number} vom 02\\.02\\.2026 war am 16\\.02\\.2026 fällig\\. ` +
          'Offen sind noch 595,00 € zuzüglich einer Mahngebühr von 5,00 € und Verzugszinsen von 4,12 €\\.',
      ),
    );
    const listed = await billing.run('billing.reminder.list', { invoice_id: invoice.document_id });
    expect(listed.records.map((r) => r.interest_amount)).toEqual([4.12]);
    const after = await billing.run('billing.document.read', { document_id: invoice.document_id });
    expect(after.document).toMatchObject({ total: 595, balance: 595, status: 'open' });
  });

  it('derives reverse charge for an EU business buyer in another member state', async () => {
    const buyer = await billing.run('billing.account.save', {
      name: 'Wien Digital GmbH',
      country_code: 'AT',
      vat_id: 'ATU12345678',
    });
    const draft = await billing.run('billing.document.create_draft', {
      document_type: 'invoice',
      document_date: today,
      account_id: buyer.account.id,
      lines: [{ item_name: 'Design', quantity: 10, unit_price: 80, tax_percent: 19 }],
    });
    expect(draft.tax_treatment).toMatchObject({ type: 'reverse_charge', customer_country_code: 'AT' });
    expect(draft.totals).toMatchObject({ tax_total: 0, reverse_charge_tax_total: 152, total: 800 });
    const accounts = await billing.run('billing.account.search', { query: 'wien' });
    expect(accounts.records.map((a) => a.id)).toEqual([buyer.account.id]);
  });
});

describe('settings and refusals', () => {
  it('updates a profile keeping what is left out; a second profile cannot take its key', async () => {
    const updated = await billing.run('billing.profile.save', {
      id: profileId,
      display_name: 'Acme GmbH (Berlin)',
    });
    expect(updated.profile).toMatchObject({
      display_name: 'Acme GmbH (Berlin)',
      issuer_vat_id: 'DE123456789',
      is_default: true,
      number_patterns: { invoice: 'RE-{YYYY}-{SEQ:5}', quote: 'QT-{YYYY}-{SEQ:5}' },
    });
    const clash = await refusal(
      billing.run('billing.profile.save', {
        display_name: 'Second',
        profile_key: updated.profile.profile_key,
      }),
    );
    expect(clash.code).toBe('conflict');
    // A key made of a German name is transliterated, not split at the umlaut.
    const german = await billing.run('billing.profile.save', { display_name: 'Bäckerei Müller & Söhne' });
    expect(german.profile.profile_key).toBe('baeckerei-mueller-and-soehne');
  });

  it('refuses an IBAN with wrong check digits, a due date before the document date and an unknown account', async () => {
    const iban = await refusal(
      billing.run('billing.bank_account.save', {
        display_name: 'X',
        account_holder: 'X',
        iban: 'DE00370400440532013000',
      }),
    );
    expect(iban.schemaPointer).toBe('/params/iban');
    const lines = [{ item_name: 'X', quantity: 1, unit_price: 1 }];
    const due = await refusal(
      billing.run('billing.document.create_draft', {
        document_type: 'invoice',
        document_date: '2026-05-10',
        due_date: '2026-05-09',
        lines,
      }),
    );
    expect(due.schemaPointer).toBe('/params/due_date');
    const account = await refusal(
      billing.run('billing.document.create_draft', {
        document_type: 'invoice',
        document_date: today,
        account_id: '00000000-0000-4000-8000-000000000000',
        lines,
      }),
    );
    expect(account.schemaPointer).toBe('/params/account_id');
  });
});

describe('numbers', () => {
  it('a finalize that rolls back gives its number back: the next one has no gap', async () => {
    const { run } = billing;
    const invoice = await run('billing.document.create_draft', {
      document_type: 'invoice',
      document_date: today,
      lines: [{ item_name: 'Small', quantity: 1, unit_price: 10 }],
    });
    await run('billing.document.finalize', { document_id: invoice.document_id });
    const lastCredit = async () =>
      Number(
        (
          await gateway
            .knex('billing_documents')
            .where({ document_type: 'credit_note' })
            .whereNotNull('number')
            .max({ n: 'number_sequence' })
        )[0]?.n ?? 0,
      );
    const before = await lastCredit();
    const tooLarge = await run('billing.document.create_draft', {
      document_type: 'credit_note',
      document_date: today,
      corrects_document_id: invoice.document_id,
      lines: [{ item_name: 'Too much', quantity: 1, unit_price: 50 }],
    });
    const refused = await refusal(run('billing.document.finalize', { document_id: tooLarge.document_id }));
    expect(refused.code).toBe('conflict');
    expect(refused.message).toMatch(/exceeds the open balance 10\.00 EUR/);
    const fits = await run('billing.document.create_draft', {
      document_type: 'credit_note',
      document_date: today,
      corrects_document_id: invoice.document_id,
      lines: [{ item_name: 'Part', quantity: 1, unit_price: 4 }],
    });
    const credited = await run('billing.document.finalize', { document_id: fits.document_id });
    expect(credited.number).toBe(`CN-${year}-${String(before + 1).padStart(5, '0')}`);
    const after = await run('billing.document.read', { document_id: invoice.document_id });
    expect(after.document).toMatchObject({ status: 'open', balance: 6 });
  });

  it('ten finalizes at once in one process: ten distinct consecutive numbers', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      const draft = await billing.run('billing.document.create_draft', {
        document_type: 'quote',
        document_date: '2031-05-01',
        lines: [{ item_name: 'Q', quantity: 1, unit_price: 1 }],
      });
      ids.push(draft.document_id);
    }
    const numbers = await Promise.all(
      ids.map(
        async (document_id) => (await billing.run('billing.document.finalize', { document_id })).number,
      ),
    );
    expect(numbers.sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `QT-2031-${String(i + 1).padStart(5, '0')}`),
    );
  });
});

describe('tenancy', () => {
  it("answers another organization's document like a missing one and lists none of it", async () => {
    const own = await billing.run('billing.document.create_draft', {
      document_type: 'quote',
      document_date: today,
      title: 'Secret quote',
      lines: [{ item_name: 'X', quantity: 1, unit_price: 1 }],
    });
    const other = await approvedInstallation(gateway, '10');
    const intruder = billingClient(gateway, other.key);
    const read = await refusal(intruder.run('billing.document.read', { document_id: own.document_id }));
    expect(read.code).toBe('not_found');
    const missing = await refusal(
      intruder.run('billing.document.read', { document_id: '00000000-0000-4000-8000-000000000000' }),
    );
    expect(missing.code).toBe('not_found');
    expect(missing.message.replace(/[0-9a-f-]{36}/, '')).toBe(read.message.replace(/[0-9a-f-]{36}/, ''));
    expect((await intruder.run('billing.document.search', { search: 'secret' })).records).toEqual([]);
    const payment = await refusal(
      intruder.run('billing.document.finalize', { document_id: own.document_id }),
    );
    expect(payment.code).toBe('not_found');
    const raw = await gateway.client.post(
      '/mcp/invoke',
      { id: 'billing.document.read', params: { document_id: own.document_id } },
      { idem: null, key: other.key },
    );
    expectEnvelope(raw.json, 'not_found');
  });

  it('answers every billing capability that takes an id of another organization like a random id', async () => {
    const invoice = await billing.run('billing.document.create_draft', {
      document_type: 'invoice',
      document_date: '2026-01-02',
      due_date: '2026-01-03',
      account_id: customerId,
      lines: [{ item_name: 'Owned', quantity: 1, unit_price: 10 }],
    });
    await billing.run('billing.document.finalize', { document_id: invoice.document_id });
    await billing.run('billing.payment.record', { document_id: invoice.document_id, amount: 1 });
    const item = await billing.run('billing.item.save', {
      name: 'Owned item',
      item_type: 'product',
      unit_price: 1,
    });
    const intruder = billingClient(gateway, (await approvedInstallation(gateway, '10')).key);
    const random = '00000000-0000-4000-8000-000000000001';
    const attempts: [string, (id: string) => Promise<unknown>, string][] = [
      [
        'document.read',
        (id) => intruder.run('billing.document.read', { document_id: id }),
        invoice.document_id,
      ],
      [
        'finalize',
        (id) => intruder.run('billing.document.finalize', { document_id: id }),
        invoice.document_id,
      ],
      ['void', (id) => intruder.run('billing.document.void', { document_id: id }), invoice.document_id],
      [
        'payment',
        (id) => intruder.run('billing.payment.record', { document_id: id, amount: 1 }),
        invoice.document_id,
      ],
      [
        'convert',
        (id) => intruder.run('billing.document.convert_order_to_invoice', { source_document_id: id }),
        invoice.document_id,
      ],
      [
        'reminder',
        (id) => intruder.run('billing.reminder.create', { invoice_id: id, reminder_date: '2026-02-01' }),
        invoice.document_id,
      ],
      ['account', (id) => intruder.run('billing.account.save', { id, name: 'Stolen' }), customerId],
      ['profile', (id) => intruder.run('billing.profile.save', { id, display_name: 'Stolen' }), profileId],
      [
        'item',
        (id) => intruder.run('billing.item.save', { id, name: 'Stolen', item_type: 'fee', unit_price: 0 }),
        item.item.id,
      ],
      [
        'draft for their account',
        (id) =>
          intruder.run('billing.document.create_draft', {
            document_type: 'quote',
            document_date: today,
            account_id: id,
            lines: [{ item_name: 'X', quantity: 1, unit_price: 1 }],
          }),
        customerId,
      ],
    ];
    const masked = (error: GatewayError) => [
      error.status,
      error.code,
      error.schemaPointer,
      error.message.replace(/[0-9a-f-]{36}/g, '<id>'),
    ];
    for (const [name, attempt, owned] of attempts) {
      const theirs = await refusal(attempt(owned));
      const none = await refusal(attempt(random));
      expect(masked(theirs), name).toEqual(masked(none));
    }
    expect(
      (await intruder.run('billing.payment.list', { document_id: invoice.document_id })).records,
    ).toEqual([]);
    expect((await intruder.run('billing.reminder.list', {})).records).toEqual([]);
    expect((await intruder.run('billing.account.search', {})).records).toEqual([]);
    const after = await billing.run('billing.document.read', { document_id: invoice.document_id });
    expect(after.document).toMatchObject({ status: 'partially_paid', balance: 9 });
    expect(after.document.counterparty_name).not.toBe('Stolen');
  });
});
