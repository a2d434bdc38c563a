// dry_run runs the handler's own checks (issue 28, finding 1): a payment over the open balance is
// refused by dry_run naming the balance, and by invoke before any operator is asked to approve it; a
// draft's dry_run shows the totals it would get; a preflight cannot write.
import { randomUUID } from 'node:crypto';
import type { CapabilityHandler } from '@agw/capabilities';
import { createAdminClient } from '@agw/client/admin';
import { beforeAll, describe, expect, it } from 'vitest';
import { runPreflight, runReadOnlyRolledBack } from '../src/invoke/preflight.js';
import { billingClient, refusal } from './helpers/billing.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';

const gateway = useGateway();
let billing: ReturnType<typeof billingClient>;
let organizationId: string;
let installationId: string;
let customerId: string;
let invoiceId: string;
const today = new Date().toISOString().slice(0, 10);

// 317.87 net at 19 % is 60.40 tax (60.3953 rounded): 378.27 open on the issued invoice.
const invoiceLines = [{ item_name: 'Inspection', quantity: 1, unit_price: 317.87, tax_percent: 19 }];

beforeAll(async () => {
  const installation = await approvedInstallation(gateway, '100');
  organizationId = installation.organizationId;
  installationId = installation.installationId;
  billing = billingClient(gateway, installation.key);
  const customer = await billing.run('billing.account.save', { name: 'Müller Bau GmbH', country_code: 'DE' });
  customerId = customer.account.id;
  const draft = await billing.run('billing.document.create_draft', {
    document_type: 'invoice',
    document_date: today,
    account_id: customerId,
    lines: invoiceLines,
  });
  await billing.run('billing.document.finalize', { document_id: draft.document_id });
  invoiceId = draft.document_id;
});

describe('dry_run of billing.payment.record', () => {
  it('refuses 500 on a 378.27 balance at /params/amount, naming the balance, with a hint', async () => {
    const answer = await billing.client.dryRun('billing.payment.record', {
      document_id: invoiceId,
      amount: 500,
    });
    expect(answer.valid).toBe(false);
    expect(answer.violations).toEqual([
      expect.objectContaining({
        schema_pointer: '/params/amount',
        keyword: 'billing',
        code: 'validation_failed',
        message: expect.stringContaining('open balance of 378.27 EUR'),
        hint: expect.stringContaining('at most 378.27 EUR'),
      }),
    ]);
  });

  it('accepts the open balance itself, still saying an approval is needed', async () => {
    const answer = await billing.client.dryRun('billing.payment.record', {
      document_id: invoiceId,
      amount: 378.27,
    });
    expect(answer).toMatchObject({ valid: true, violations: [], would_require_approval: true });
  });

  it('says which document is unknown or not payable, with the code invoke answers', async () => {
    const unknown = await billing.client.dryRun('billing.payment.record', {
      document_id: randomUUID(),
      amount: 1,
    });
    expect(unknown.valid).toBe(false);
    expect(unknown.violations?.[0]).toMatchObject({
      schema_pointer: '/params/document_id',
      code: 'not_found',
    });
    const draft = await billing.run('billing.document.create_draft', {
      document_type: 'invoice',
      document_date: today,
      account_id: customerId,
      lines: invoiceLines,
    });
    const ofDraft = await billing.client.dryRun('billing.payment.record', {
      document_id: draft.document_id,
      amount: 1,
    });
    expect(ofDraft.violations?.[0]).toMatchObject({
      schema_pointer: '/params/document_id',
      code: 'conflict',
      message: expect.stringContaining('is a draft'),
      hint: expect.stringContaining('billing.document.finalize'),
    });
  });
});

describe('invoke of billing.payment.record over the balance', () => {
  it('answers the 400 before any approval is asked: no approval row, the operator sees nothing', async () => {
    const admin = createAdminClient({ baseUrl: gateway.url, operatorKey: gateway.operatorKey });
    const before = await admin.listApprovals({ status: 'all', organization: organizationId });
    const error = await refusal(
      billing.client.invoke('billing.payment.record', { document_id: invoiceId, amount: 500 }),
    );
    expect(error).toMatchObject({
      status: 400,
      code: 'validation_failed',
      schemaPointer: '/params/amount',
      message: expect.stringContaining('open balance of 378.27 EUR'),
      hint: expect.stringContaining('at most 378.27 EUR'),
    });
    expect(error.details?.[0]).toMatchObject({ schema_pointer: '/params/amount', keyword: 'billing' });
    const after = await admin.listApprovals({ status: 'all', organization: organizationId });
    expect(after).toHaveLength(before.length);
    const rows = await gateway.knex('approvals').where({
      organization_id: organizationId,
      capability_id: 'billing.payment.record',
    });
    expect(rows.filter((row) => !before.some((seen) => seen.approval_id === row.approval_id))).toEqual([]);
  });

  it('still asks for the approval of a payment the rules accept', async () => {
    const answer = await billing.client.invoke('billing.payment.record', {
      document_id: invoiceId,
      amount: 100,
    });
    expect(answer.status).toBe('pending_approval');
  });
});

describe('a rule refused before the approval and by the handler', () => {
  it('answers the same code, hint, schema_pointer and details both ways (a payment on a cancelled invoice)', async () => {
    const draft = await billing.run('billing.document.create_draft', {
      document_type: 'invoice',
      document_date: today,
      account_id: customerId,
      lines: invoiceLines,
    });
    await billing.run('billing.document.finalize', { document_id: draft.document_id });
    const admin = createAdminClient({ baseUrl: gateway.url, operatorKey: gateway.operatorKey });
    const params = { document_id: draft.document_id, amount: 1 };
    const pending = await billing.client.invoke('billing.payment.record', params);
    const approval = pending.approval as { approval_id: string; approval_token: string };
    await admin.approveApproval(approval.approval_id);
    // Approved while open, cancelled before it runs: the handler itself refuses.
    await gateway.knex('billing_documents').where({ id: draft.document_id }).update({ status: 'cancelled' });
    const byHandler = await refusal(
      billing.client.invoke('billing.payment.record', params, { approvalToken: approval.approval_token }),
    );
    const beforeApproval = await refusal(
      billing.client.invoke('billing.payment.record', { ...params, amount: 2 }),
    );
    const shape = (error: Awaited<ReturnType<typeof refusal>>) => ({
      status: error.status,
      code: error.code,
      message: error.message,
      hint: error.hint,
      schemaPointer: error.schemaPointer,
      details: error.details,
    });
    expect(byHandler).toMatchObject({ status: 409, code: 'conflict' });
    expect(byHandler.message).toContain('is cancelled and takes no payments');
    expect(shape(beforeApproval)).toEqual(shape(byHandler));
  });
});

describe('the hint of a business rule at invoke', () => {
  it('is not "The request does not match the schema" when the params match it', async () => {
    const error = await refusal(
      billing.client.invoke('billing.document.create_draft', {
        document_type: 'invoice',
        document_date: today,
        account_id: randomUUID(),
        lines: invoiceLines,
      }),
    );
    expect(error).toMatchObject({
      status: 400,
      code: 'validation_failed',
      schemaPointer: '/params/account_id',
    });
    expect(error.hint).not.toMatch(/does not match the schema/);
    expect(error.hint).toMatch(/match the schema but a rule of the capability refuses them/);
  });
});

describe('dry_run of billing.document.create_draft', () => {
  it('previews the totals per VAT group the draft would get, and stores no draft', async () => {
    const count = async () =>
      Number(
        (
          await gateway.knex('billing_documents').where({ organization_id: organizationId }).count({ n: '*' })
        )[0]?.n,
      );
    const stored = await count();
    const answer = await billing.client.dryRun('billing.document.create_draft', {
      document_type: 'invoice',
      document_date: today,
      account_id: customerId,
      lines: [...invoiceLines, { item_name: 'Handbook', quantity: 3, unit_price: 19.99, tax_percent: 7 }],
    });
    expect(answer.valid).toBe(true);
    const preview = answer.effects?.find((effect) => effect.kind === 'preview');
    // 3 × 19.99 = 59.97 at 7 % → 4.20 (4.1979).
    expect(preview).toMatchObject({
      capability_id: 'billing.document.create_draft',
      preview: {
        status: 'draft',
        currency: 'EUR',
        line_count: 2,
        totals: { subtotal: 377.84, tax_total: 64.6, total: 442.44 },
        tax_groups: expect.arrayContaining([
          { category: 'S', percent: 19, net: 317.87, tax: 60.4, gross: 378.27 },
          { category: 'S', percent: 7, net: 59.97, tax: 4.2, gross: 64.17 },
        ]),
      },
    });
    expect(await count()).toBe(stored);
  });

  it('answers the handler refusal as a violation (an unknown account)', async () => {
    const answer = await billing.client.dryRun('billing.document.create_draft', {
      document_type: 'invoice',
      document_date: today,
      account_id: randomUUID(),
      lines: invoiceLines,
    });
    expect(answer.valid).toBe(false);
    expect(answer.violations?.[0]).toMatchObject({
      schema_pointer: '/params/account_id',
      code: 'validation_failed',
      message: 'names no account of this organization',
    });
  });
});

describe('a preflight cannot write', () => {
  it('is refused by PostgreSQL (read-only transaction) and leaves no row', async () => {
    const id = randomUUID();
    const insert = (sql: { query: (text: string, params: unknown[]) => Promise<unknown> }) =>
      sql.query('insert into billing_accounts (id, organization_id, name) values ($1, $2, $3)', [
        id,
        organizationId,
        'Written by a preflight',
      ]);
    await expect(runReadOnlyRolledBack(gateway.knex, organizationId, insert)).rejects.toMatchObject({
      code: '25006',
    });
    const handler = {
      preflight: async (_input: unknown, ctx: { sql: Parameters<typeof insert>[0] }) => {
        await insert(ctx.sql);
        return { violations: [] };
      },
    } as unknown as CapabilityHandler<never>;
    const runtime = { knex: gateway.knex, clock: { now: () => new Date() } };
    await expect(
      runPreflight(
        runtime,
        handler,
        {},
        { organization_id: organizationId, installation_id: installationId },
      ),
    ).rejects.toMatchObject({ code: '25006' });
    expect(await gateway.knex('billing_accounts').where({ id })).toEqual([]);
  });

  it('takes no number: nextval and row locks are refused too', async () => {
    const locking = runReadOnlyRolledBack(gateway.knex, organizationId, (sql) =>
      sql.query('select id from billing_documents where organization_id = $1 for update', [organizationId]),
    );
    await expect(locking).rejects.toMatchObject({ code: '25006' });
    // The schema numbers documents with counter rows, not sequences: a sequence the runtime role may
    // advance stands for one a domain might add.
    const sequence = `preflight_probe_${randomUUID().replaceAll('-', '')}`;
    await gateway.knex.raw(`create sequence ${sequence}`);
    await gateway.knex.raw(`grant usage, update on sequence ${sequence} to agw_runtime`);
    const numbering = runReadOnlyRolledBack(gateway.knex, organizationId, (sql) =>
      sql.query(`select nextval('${sequence}')`, []),
    );
    await expect(numbering).rejects.toMatchObject({ code: '25006' });
    const [after] = (await gateway.knex.raw(`select last_value, is_called from ${sequence}`)).rows;
    expect(after).toMatchObject({ is_called: false });
    expect(Number(after.last_value)).toBe(1);
  });
});

describe('dry_run of billing.document.finalize', () => {
  it('refuses a document that is no longer a draft, with the conflict invoke answers', async () => {
    const answer = await billing.client.dryRun('billing.document.finalize', { document_id: invoiceId });
    expect(answer.valid).toBe(false);
    expect(answer.violations?.[0]).toMatchObject({
      schema_pointer: '/params/document_id',
      code: 'conflict',
      message: expect.stringContaining('only a draft is finalized'),
    });
  });

  it('refuses a credit note above the open balance of the invoice it corrects, before a number is taken', async () => {
    const credit = await billing.run('billing.document.create_draft', {
      document_type: 'credit_note',
      document_date: today,
      account_id: customerId,
      corrects_document_id: invoiceId,
      lines: [{ item_name: 'Inspection', quantity: 2, unit_price: 317.87, tax_percent: 19 }],
    });
    const answer = await billing.client.dryRun('billing.document.finalize', {
      document_id: credit.document_id,
    });
    expect(answer.violations?.[0]).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('exceeds the open balance 378.27 EUR'),
      hint: expect.stringContaining('at most the open balance'),
    });
  });
});

describe('dry_run of assist.artifact.save', () => {
  it('previews the version a save would create, and none for unchanged content', async () => {
    const fresh = await billing.client.dryRun('assist.artifact.save', { title: 'Plan', content: 'v1' });
    expect(fresh.effects?.find((effect) => effect.kind === 'preview')).toMatchObject({
      preview: { created: true, version: 1, version_created: true },
    });
    const saved = (await billing.client.invoke('assist.artifact.save', { title: 'Plan', content: 'v1' })) as {
      result: { artifact: { id: string } };
    };
    const id = saved.result.artifact.id;
    const changed = await billing.client.dryRun('assist.artifact.save', { artifact_id: id, content: 'v2' });
    expect(changed.effects?.find((effect) => effect.kind === 'preview')).toMatchObject({
      preview: { created: false, version: 2, version_created: true },
    });
    const same = await billing.client.dryRun('assist.artifact.save', { artifact_id: id, content: 'v1' });
    expect(same.effects?.find((effect) => effect.kind === 'preview')).toMatchObject({
      preview: { version: 1, version_created: false },
    });
    const versions = await gateway.knex('assist_artifact_versions').where({ artifact_id: id });
    expect(versions).toHaveLength(1);
  });

  it('names an unknown artifact as invoke would (not_found)', async () => {
    const answer = await billing.client.dryRun('assist.artifact.save', {
      artifact_id: randomUUID(),
      content: 'x',
    });
    expect(answer.violations?.[0]).toMatchObject({
      schema_pointer: '/params/artifact_id',
      code: 'not_found',
    });
  });
});

describe('dry_run of billing.reminder.create', () => {
  it('reminds only an overdue invoice, saying from when; previews the level it would get', async () => {
    const tomorrow = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const early = await billing.client.dryRun('billing.reminder.create', { invoice_id: invoiceId });
    expect(early.valid).toBe(false);
    expect(early.violations?.[0]).toMatchObject({
      schema_pointer: '/params/invoice_id',
      code: 'conflict',
      message: expect.stringContaining('is not overdue'),
      hint: `Only an overdue invoice is reminded: from ${tomorrow} on.`,
    });
    const due = await billing.client.dryRun('billing.reminder.create', {
      invoice_id: invoiceId,
      reminder_date: tomorrow,
    });
    expect(due.valid).toBe(true);
    expect(due.effects?.find((effect) => effect.kind === 'preview')).toMatchObject({
      preview: { reminder_level: 'payment_reminder', reminder_date: tomorrow, due_date_at_reminder: today },
    });
  });
});
