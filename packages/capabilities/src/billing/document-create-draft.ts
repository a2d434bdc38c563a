import { defineCapabilityHandler, type PreflightContext, preflightOf } from '../define.js';
import { runStatement } from '../sql.js';
import { addDays, billingContract, conflict, currencyCode, invalid, PAYABLE_TYPES } from './common.js';
import {
  type DraftDocument,
  type DraftLine,
  draftPreview,
  draftSummary,
  initialPaymentStatus,
  insertDraft,
  issuerSnapshot,
} from './draft.js';
import type { BillingDocumentRow, CounterpartySnapshot } from './records.js';
import { selectDocument } from './sql.js';
import { type AccountRow, type ItemRow, selectAccount, selectItem } from './sql-catalog.js';
import { type ProfileRow, selectDefaultProfile, selectProfile } from './sql-settings.js';
import { deriveTaxTreatment, type TaxTreatment } from './totals.js';

interface LineInput {
  item_name: string;
  quantity: number;
  unit_price: number;
  item_id?: string | null;
  sku?: string | null;
  description?: string | null;
  unit?: string | null;
  tax_name?: string | null;
  discount_amount?: number;
  tax_percent?: number;
}

export interface CreateDraftInput {
  document_type: string;
  document_date: string;
  lines: LineInput[];
  account_id?: string | null;
  vendor_id?: string | null;
  document_profile_id?: string | null;
  title?: string | null;
  buyer_reference?: string | null;
  order_reference?: string | null;
  customer_e_invoice_endpoint_id?: string | null;
  customer_e_invoice_endpoint_scheme_id?: string | null;
  notes?: string | null;
  terms?: string | null;
  valid_until?: string | null;
  due_date?: string | null;
  service_date?: string | null;
  currency?: string;
  shipping_address?: Record<string, unknown>;
  tax_treatment?: TaxTreatment;
  vat_accounting_currency?: string;
  exchange_rate?: number | null;
  document_discounts?: { amount: number; tax_percent?: number; reason?: string | null }[];
  corrects_document_id?: string | null;
}

/** What a document shows of its counterparty, copied now so later account changes do not reach it. */
export function counterpartySnapshot(account: AccountRow | undefined): CounterpartySnapshot {
  if (account === undefined) return {};
  return {
    account_id: account.id,
    name: account.name,
    legal_name: account.legal_name,
    address_line1: account.address_line1,
    address_line2: account.address_line2,
    postal_code: account.postal_code,
    city: account.city,
    state: account.state,
    country_code: account.country_code,
    vat_id: account.vat_id,
    email: account.email,
    buyer_reference: account.buyer_reference,
    e_invoice_endpoint_id: account.e_invoice_endpoint_id,
    e_invoice_endpoint_scheme_id: account.e_invoice_endpoint_scheme_id,
  };
}

/**
 * Everything a draft of `input` holds, read and checked: the accounts, profile, corrected invoice and
 * items it names (each must exist in this organization), its currency, tax treatment and due date.
 * Throws the refusal `handle` answers; writes nothing (the preflight runs it read-only).
 */
async function prepareDraft(
  input: CreateDraftInput,
  ctx: Pick<PreflightContext, 'organizationId' | 'sql'>,
): Promise<{ draft: DraftDocument; lines: DraftLine[] }> {
  const org = ctx.organizationId;
  if (input.due_date != null && input.due_date < input.document_date) {
    invalid('/params/due_date', `must not be before the document date ${input.document_date}`);
  }
  const loadAccount = async (id: string | null | undefined, pointer: string) => {
    if (id == null) return undefined;
    const row = (await runStatement<AccountRow>(ctx.sql, selectAccount, [org, id])).rows[0];
    if (row === undefined) invalid(pointer, 'names no account of this organization');
    return row;
  };
  const account = await loadAccount(input.account_id, '/params/account_id');
  const vendor = await loadAccount(input.vendor_id, '/params/vendor_id');
  const counterpartyAccount =
    input.document_type === 'self_billing_invoice' ? (vendor ?? account) : (account ?? vendor);

  let profile: ProfileRow | undefined;
  if (input.document_profile_id != null) {
    profile = (await runStatement<ProfileRow>(ctx.sql, selectProfile, [org, input.document_profile_id]))
      .rows[0];
    if (profile === undefined)
      invalid('/params/document_profile_id', 'names no profile of this organization');
  } else {
    profile = (await runStatement<ProfileRow>(ctx.sql, selectDefaultProfile, [org])).rows[0];
  }

  let corrected: BillingDocumentRow | undefined;
  if (input.corrects_document_id != null) {
    if (input.document_type !== 'credit_note') {
      invalid('/params/corrects_document_id', 'is only for a credit_note');
    }
    corrected = (
      await runStatement<BillingDocumentRow>(ctx.sql, selectDocument, [org, input.corrects_document_id])
    ).rows[0];
    if (corrected === undefined)
      invalid('/params/corrects_document_id', 'names no document of this organization');
    if (
      !PAYABLE_TYPES.includes(corrected.document_type) ||
      corrected.number === null ||
      corrected.status === 'void'
    ) {
      conflict(
        `A credit note corrects an issued, not voided invoice; ${corrected.id} is a ${corrected.status} ${corrected.document_type}.`,
      );
    }
  }

  const currency =
    input.currency !== undefined
      ? currencyCode(input.currency, '/params/currency')
      : (corrected?.currency ?? counterpartyAccount?.default_currency ?? profile?.currency ?? 'EUR');
  if (corrected !== undefined && corrected.currency !== currency) {
    invalid('/params/currency', `must be the corrected invoice's currency ${corrected.currency}`);
  }

  const items = new Map<string, ItemRow>();
  for (const [index, line] of input.lines.entries()) {
    if (line.item_id == null || items.has(line.item_id)) continue;
    const item = (await runStatement<ItemRow>(ctx.sql, selectItem, [org, line.item_id])).rows[0];
    if (item === undefined) invalid(`/params/lines/${index}/item_id`, 'names no item of this organization');
    items.set(line.item_id, item);
  }
  const lines: DraftLine[] = input.lines.map((line) => {
    const item = line.item_id == null ? undefined : items.get(line.item_id);
    return {
      item_id: line.item_id ?? null,
      item_name: line.item_name,
      sku: line.sku ?? item?.sku ?? null,
      description: line.description ?? null,
      unit: line.unit ?? item?.unit ?? null,
      quantity: line.quantity,
      unit_price: line.unit_price,
      discount_amount: line.discount_amount ?? 0,
      tax_name: line.tax_name ?? item?.tax_name ?? null,
      tax_percent: line.tax_percent ?? item?.tax_percent ?? 0,
    };
  });

  const counterparty = counterpartySnapshot(counterpartyAccount);
  const taxTreatment =
    input.tax_treatment ??
    (corrected?.tax_treatment as TaxTreatment | undefined) ??
    deriveTaxTreatment(profile?.texts.issuer_country, counterparty.country_code, counterparty.vat_id);
  const terms = counterpartyAccount?.payment_terms_days;
  const dueDate =
    input.due_date !== undefined
      ? input.due_date
      : PAYABLE_TYPES.includes(input.document_type) && terms != null
        ? addDays(input.document_date, terms)
        : null;
  const draft: DraftDocument = {
    document_type: input.document_type,
    payment_status: initialPaymentStatus(input.document_type),
    title: input.title ?? null,
    document_date: input.document_date,
    due_date: dueDate,
    valid_until: input.valid_until ?? null,
    service_date: input.service_date ?? null,
    currency,
    profile_id: profile?.id ?? null,
    account_id: account?.id ?? null,
    vendor_id: vendor?.id ?? null,
    source_document_id: null,
    source_document_type: null,
    corrects_document_id: corrected?.id ?? null,
    counterparty,
    issuer: issuerSnapshot(profile),
    buyer_reference: input.buyer_reference ?? counterparty.buyer_reference ?? null,
    order_reference: input.order_reference ?? null,
    customer_e_invoice_endpoint_id:
      input.customer_e_invoice_endpoint_id ?? counterparty.e_invoice_endpoint_id ?? null,
    customer_e_invoice_endpoint_scheme_id:
      input.customer_e_invoice_endpoint_scheme_id ?? counterparty.e_invoice_endpoint_scheme_id ?? null,
    notes: input.notes ?? null,
    terms: input.terms ?? null,
    shipping_address: input.shipping_address ?? null,
    tax_treatment: taxTreatment,
    vat_accounting_currency:
      input.vat_accounting_currency === undefined
        ? null
        : currencyCode(input.vat_accounting_currency, '/params/vat_accounting_currency'),
    exchange_rate: input.exchange_rate ?? null,
    document_discounts: input.document_discounts ?? [],
  };
  return { draft, lines };
}

/**
 * `billing.document.create_draft`: a draft of any type with its lines and EN 16931 totals. The
 * counterparty is the account (or, for a self-billing invoice, the vendor) as it is now; the issuer is
 * the named profile or the default one; the tax treatment is the one given or derived from issuer and
 * buyer country and VAT id. A credit note may name the issued invoice it corrects. Its preflight runs
 * the same checks and previews the totals per VAT group the draft would get.
 */
export const billingCreateDraftHandler = defineCapabilityHandler<CreateDraftInput, unknown>({
  contract: billingContract('billing.document.create_draft'),
  async preflight(input, ctx) {
    return preflightOf(async () => {
      const { draft, lines } = await prepareDraft(input, ctx);
      return draftPreview(draft, lines);
    });
  },
  async handle(input, ctx) {
    const { draft, lines } = await prepareDraft(input, ctx);
    const { id, totals } = await insertDraft(ctx, draft, lines);
    return {
      document_id: id,
      document_type: input.document_type,
      status: 'draft',
      number: null,
      currency: draft.currency,
      line_count: lines.length,
      payment_status: draft.payment_status,
      ...draftSummary(draft, totals),
    };
  },
});
