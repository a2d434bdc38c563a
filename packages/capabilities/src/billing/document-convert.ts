import type { CapabilityContract } from '@agw/contracts';
import { defineCapabilityHandler } from '../define.js';
import { runStatement } from '../sql.js';
import { addDays, billingContract, conflict, notFound, PAYABLE_TYPES, utcDate } from './common.js';
import { type DraftDocument, initialPaymentStatus, insertDraft } from './draft.js';
import { readDocument } from './read-document.js';
import type { BillingDocumentRow } from './records.js';
import { selectConversion } from './sql.js';
import { type AccountRow, selectAccount } from './sql-catalog.js';
import type { TaxTreatment } from './totals.js';

export interface ConvertInput {
  source_document_id: string;
  document_date?: string;
  title?: string | null;
}

/**
 * A conversion copies the source's lines, counterparty, currency, tax treatment and discounts into a
 * new draft of the next type that references the source. Converting the same source again answers the
 * existing live conversion with `created: false` instead of a second order or invoice.
 */
function convertHandler(contract: CapabilityContract, from: string, to: string) {
  return defineCapabilityHandler<ConvertInput, unknown>({
    contract,
    async handle(input, ctx) {
      const org = ctx.organizationId;
      const stored = await readDocument(ctx.sql, org, input.source_document_id);
      if (stored === undefined) notFound('document', input.source_document_id);
      const source = stored.document;
      if (source.document_type !== from) {
        conflict(`${contract.id} converts a ${from}; ${source.id} is a ${source.document_type}.`);
      }
      if (['void', 'cancelled', 'declined'].includes(source.status)) {
        conflict(`The ${from} ${source.id} is ${source.status} and cannot be converted.`);
      }
      const existing = (
        await runStatement<BillingDocumentRow>(ctx.sql, selectConversion, [org, source.id, to])
      ).rows[0];
      if (existing !== undefined) {
        return {
          document_id: existing.id,
          source_document_id: source.id,
          source_document_type: source.document_type,
          document_type: existing.document_type,
          status: 'draft',
          payment_status: existing.payment_status,
          number: existing.number,
          line_count: stored.lines.length,
          created: false,
        };
      }
      // An invoice is due after the customer's payment terms, counted from its own date.
      const documentDate = input.document_date ?? utcDate(ctx.now);
      const account =
        source.account_id === null
          ? undefined
          : (await runStatement<AccountRow>(ctx.sql, selectAccount, [org, source.account_id])).rows[0];
      const terms = account?.payment_terms_days;
      const draft: DraftDocument = {
        document_type: to,
        payment_status: initialPaymentStatus(to),
        title: input.title === undefined ? source.title : input.title,
        document_date: documentDate,
        due_date: PAYABLE_TYPES.includes(to) && terms != null ? addDays(documentDate, terms) : null,
        valid_until: null,
        service_date: source.service_date,
        currency: source.currency,
        profile_id: source.profile_id,
        account_id: source.account_id,
        vendor_id: source.vendor_id,
        source_document_id: source.id,
        source_document_type: source.document_type,
        corrects_document_id: null,
        counterparty: source.counterparty,
        issuer: source.issuer,
        buyer_reference: source.buyer_reference,
        order_reference: source.order_reference ?? (from === 'sales_order' ? source.number : null),
        customer_e_invoice_endpoint_id: source.customer_e_invoice_endpoint_id,
        customer_e_invoice_endpoint_scheme_id: source.customer_e_invoice_endpoint_scheme_id,
        notes: source.notes,
        terms: null,
        shipping_address: source.shipping_address,
        tax_treatment: source.tax_treatment as TaxTreatment,
        // A conversion keeps the source's rate; finalize may still set or replace it.
        vat_accounting_currency: source.vat_accounting_currency,
        exchange_rate: source.exchange_rate === null ? null : Number(source.exchange_rate),
        document_discounts: source.document_discounts,
      };
      const { id } = await insertDraft(
        ctx,
        draft,
        stored.lines.map((line) => ({ ...line, tax_percent: line.tax_percent })),
      );
      return {
        document_id: id,
        source_document_id: source.id,
        source_document_type: source.document_type,
        document_type: to,
        status: 'draft',
        payment_status: draft.payment_status,
        number: null,
        line_count: stored.lines.length,
        created: true,
      };
    },
  });
}

/** `billing.document.convert_quote_to_order`. */
export const billingConvertQuoteToOrderHandler = convertHandler(
  billingContract('billing.document.convert_quote_to_order'),
  'quote',
  'sales_order',
);

/** `billing.document.convert_order_to_invoice`. */
export const billingConvertOrderToInvoiceHandler = convertHandler(
  billingContract('billing.document.convert_order_to_invoice'),
  'sales_order',
  'invoice',
);
