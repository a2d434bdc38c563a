import type { CapabilityContext } from '../define.js';
import { runStatement } from '../sql.js';
import { money, toNumber } from './money.js';
import type { CounterpartySnapshot, DocumentDiscountRow, IssuerSnapshot } from './records.js';
import { INSERT_DOCUMENT_COLUMNS, type InsertDocumentColumn, insertDocument, insertLine } from './sql.js';
import type { ProfileRow } from './sql-settings.js';
import { computeTotals, TAX_TREATMENT_LABELS, type TaxTreatment, type Totals } from './totals.js';

/** A line as a draft stores it (numbers as exact decimal strings or JSON numbers). */
export interface DraftLine {
  readonly item_id: string | null;
  readonly item_name: string;
  readonly sku: string | null;
  readonly description: string | null;
  readonly unit: string | null;
  readonly quantity: number | string;
  readonly unit_price: number | string;
  readonly discount_amount: number | string;
  readonly tax_name: string | null;
  readonly tax_percent: number | string;
}

/** Everything a new draft holds besides its id, totals and timestamps. */
export interface DraftDocument {
  readonly document_type: string;
  readonly payment_status: string;
  readonly title: string | null;
  readonly document_date: string;
  readonly due_date: string | null;
  readonly valid_until: string | null;
  readonly service_date: string | null;
  readonly currency: string;
  readonly profile_id: string | null;
  readonly account_id: string | null;
  readonly vendor_id: string | null;
  readonly source_document_id: string | null;
  readonly source_document_type: string | null;
  readonly corrects_document_id: string | null;
  readonly counterparty: CounterpartySnapshot;
  readonly issuer: IssuerSnapshot;
  readonly buyer_reference: string | null;
  readonly order_reference: string | null;
  readonly customer_e_invoice_endpoint_id: string | null;
  readonly customer_e_invoice_endpoint_scheme_id: string | null;
  readonly notes: string | null;
  readonly terms: string | null;
  readonly shipping_address: Record<string, unknown> | null;
  readonly tax_treatment: TaxTreatment;
  readonly vat_accounting_currency: string | null;
  readonly exchange_rate: number | null;
  readonly document_discounts: readonly {
    amount: number | string;
    tax_percent?: number | string;
    reason?: string | null;
  }[];
}

/** The issuer snapshot of a profile (what an issued document shows of its issuer). */
export function issuerSnapshot(profile: ProfileRow | undefined): IssuerSnapshot {
  if (profile === undefined) return {};
  return {
    profile_id: profile.id,
    profile_key: profile.profile_key,
    ...profile.texts,
    legal_footer_lines: profile.legal_footer_lines,
    locale: profile.locale,
  };
}

/** Default payment status of a new draft: payable types start unpaid, the others do not take payments. */
export function initialPaymentStatus(documentType: string): string {
  return documentType === 'invoice' || documentType === 'self_billing_invoice' ? 'unpaid' : 'not_applicable';
}

/** The create_draft / convert answer's totals and tax treatment. */
export function draftSummary(draft: DraftDocument, totals: Totals) {
  return {
    totals: {
      subtotal: toNumber(totals.subtotal),
      discount_total: toNumber(totals.discount_total),
      tax_total: toNumber(totals.tax_total),
      reverse_charge_tax_total: toNumber(totals.reverse_charge_tax_total),
      total: toNumber(totals.total),
      balance: toNumber(totals.total),
    },
    tax_treatment: {
      type: draft.tax_treatment,
      label: TAX_TREATMENT_LABELS[draft.tax_treatment],
      customer_tax_id: draft.counterparty.vat_id ?? null,
      customer_country_code: draft.counterparty.country_code ?? null,
    },
  };
}

/** The EN 16931 totals of a draft of `lines`: what {@link insertDraft} stores. */
export function draftTotals(draft: DraftDocument, lines: readonly DraftLine[]): Totals {
  return computeTotals({
    currency: draft.currency,
    tax_treatment: draft.tax_treatment,
    lines,
    document_discounts: draft.document_discounts,
  });
}

/**
 * What a draft of `lines` would be, for a dry run: the create_draft answer's totals and tax treatment
 * plus one entry per VAT group (category and rate: net, tax and gross), from the same totals code
 * {@link insertDraft} stores.
 */
export function draftPreview(draft: DraftDocument, lines: readonly DraftLine[]) {
  const totals = draftTotals(draft, lines);
  return {
    document_type: draft.document_type,
    status: 'draft',
    currency: draft.currency,
    line_count: lines.length,
    ...draftSummary(draft, totals),
    tax_groups: totals.groups.map((group) => ({
      category: group.category,
      percent: toNumber(group.percent),
      net: toNumber(group.taxable_amount),
      tax: toNumber(group.tax_amount),
      gross: toNumber(money(group.taxable_amount).plus(money(group.tax_amount))),
      ...(group.exemption_reason === null ? {} : { exemption_reason: group.exemption_reason }),
    })),
  };
}

/** Computes the totals and writes the draft and its lines; returns its id and totals. */
export async function insertDraft(
  ctx: CapabilityContext,
  draft: DraftDocument,
  lines: readonly DraftLine[],
): Promise<{ id: string; totals: Totals }> {
  const totals = draftTotals(draft, lines);
  const id = ctx.ids.uuid();
  const discounts: DocumentDiscountRow[] = [...totals.document_discounts];
  const values: Record<InsertDocumentColumn, unknown> = {
    id,
    organization_id: ctx.organizationId,
    installation_id: ctx.installationId,
    document_type: draft.document_type,
    status: 'draft',
    payment_status: draft.payment_status,
    title: draft.title,
    document_date: draft.document_date,
    due_date: draft.due_date,
    valid_until: draft.valid_until,
    service_date: draft.service_date,
    currency: draft.currency,
    profile_id: draft.profile_id,
    account_id: draft.account_id,
    vendor_id: draft.vendor_id,
    source_document_id: draft.source_document_id,
    source_document_type: draft.source_document_type,
    corrects_document_id: draft.corrects_document_id,
    counterparty_name: draft.counterparty.name ?? null,
    counterparty_email: draft.counterparty.email ?? null,
    counterparty: JSON.stringify(draft.counterparty),
    issuer: JSON.stringify(draft.issuer),
    buyer_reference: draft.buyer_reference,
    order_reference: draft.order_reference,
    customer_e_invoice_endpoint_id: draft.customer_e_invoice_endpoint_id,
    customer_e_invoice_endpoint_scheme_id: draft.customer_e_invoice_endpoint_scheme_id,
    notes: draft.notes,
    terms: draft.terms,
    shipping_address: draft.shipping_address === null ? null : JSON.stringify(draft.shipping_address),
    tax_treatment: draft.tax_treatment,
    customer_tax_id: draft.counterparty.vat_id ?? null,
    customer_country_code: draft.counterparty.country_code ?? null,
    document_discounts: JSON.stringify(discounts),
    tax_breakdown: JSON.stringify(totals.groups),
    subtotal: totals.subtotal,
    discount_total: totals.discount_total,
    net_total: totals.net_total,
    tax_total: totals.tax_total,
    reverse_charge_tax_total: totals.reverse_charge_tax_total,
    total: totals.total,
    balance: totals.total,
    vat_accounting_currency: draft.vat_accounting_currency,
    exchange_rate: draft.exchange_rate === null ? null : String(draft.exchange_rate),
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  await runStatement(
    ctx.sql,
    insertDocument,
    INSERT_DOCUMENT_COLUMNS.map((column) => values[column]),
  );
  for (const [position, line] of lines.entries()) {
    const computed = totals.lines[position];
    if (computed === undefined) throw new Error('totals lost a line');
    await runStatement(ctx.sql, insertLine, [
      ctx.ids.uuid(),
      ctx.organizationId,
      id,
      position,
      line.item_id,
      line.item_name,
      line.sku,
      line.description,
      line.unit,
      String(line.quantity),
      String(line.unit_price),
      computed.discount_amount,
      computed.line_gross,
      computed.line_total,
      line.tax_name,
      computed.given_tax_percent,
      computed.tax_category,
      computed.tax_amount,
    ]);
  }
  return { id, totals };
}
