import { Type } from '@sinclair/typebox';
import { NullableDisplayText } from '../schemas/display-text.js';
import { DateString, Described, Nullable, Uuid } from '../schemas/primitives.js';
import {
  billingCreateDraft,
  DraftStatus,
  MAX_DOCUMENT_DELIVERIES,
  MAX_DOCUMENT_LINES,
  MAX_DOCUMENT_PAYMENTS,
} from './billing-create-draft.js';
import { DeliveryRecord } from './billing-delivery.js';
import {
  DocumentPaymentStatus,
  DocumentRecord,
  DocumentStatus,
  DocumentType,
  LineRecord,
  PaymentRecord,
} from './billing-records.js';
import { Count, Input, NullableString, OneOf, Output, Page, PagingQuery } from './common.js';
import { defineCapability } from './types.js';

/**
 * A conversion (quote → sales order, sales order → invoice): both take the source document and create
 * a new draft that references it, so they share their schemas and policy and differ in id and wording.
 */
function convertCapability<const Id extends string>(id: Id, summary: string, tags: readonly string[]) {
  return defineCapability({
    id,
    version: '1.0.0',
    summary,
    tags,
    risk_level: 'medium',
    scopes: ['billing:write'],
    cost_credits: '0.10',
    mutating: true,
    dry_run: 'supported',
    input_schema: Input({
      source_document_id: Described(Uuid(), 'The document to convert (a quote, or a sales order).'),
      document_date: Type.Optional(
        Described(DateString(), 'Issue date of the new document; today (UTC) when left out.'),
      ),
      title: Type.Optional(
        Described(NullableDisplayText(1000), "Title of the new document; the source's title when left out."),
      ),
    }),
    output_schema: Output({
      document_id: Described(
        Uuid(),
        'Id of the new draft (or of the earlier conversion when created is false).',
      ),
      source_document_id: Described(Uuid(), 'The converted document.'),
      source_document_type: DocumentType(),
      document_type: DocumentType(),
      status: DraftStatus(),
      payment_status: Described(
        Nullable(DocumentPaymentStatus()),
        'unpaid for an invoice, not_applicable for a sales order.',
      ),
      number: Described(NullableString(), 'Null: a draft gets its number at billing.document.finalize.'),
      line_count: Described(Count(), 'Lines copied from the source.'),
      created: Described(
        Type.Boolean(),
        'False when the source was already converted and that live document is answered instead of a second one.',
      ),
    }),
  });
}

/** billing.document.convert_quote_to_order. */
export const billingConvertQuoteToOrder = convertCapability(
  'billing.document.convert_quote_to_order',
  'Create a draft sales order from a quote; the new document references the quote.',
  ['billing', 'document', 'convert', 'quote', 'sales_order'],
);

/** billing.document.convert_order_to_invoice. */
export const billingConvertOrderToInvoice = convertCapability(
  'billing.document.convert_order_to_invoice',
  'Create a draft invoice from a sales order; the new document references the order.',
  ['billing', 'document', 'convert', 'sales_order', 'invoice'],
);

/** billing.document.read. */
export const billingDocumentRead = defineCapability({
  id: 'billing.document.read',
  version: '1.0.0',
  summary: 'Read one billing document with its lines and payments.',
  tags: ['billing', 'document', 'read'],
  risk_level: 'low',
  scopes: ['billing:read'],
  cost_credits: '0',
  mutating: false,
  dry_run: 'supported',
  input_schema: Input({ document_id: Described(Uuid(), 'The document to read.') }),
  output_schema: Output({
    document: Described(DocumentRecord(), 'The document with its totals.'),
    lines: Type.Array(LineRecord(), {
      maxItems: MAX_DOCUMENT_LINES,
      description: 'Its lines, in position order.',
    }),
    payments: Type.Array(PaymentRecord(), {
      maxItems: MAX_DOCUMENT_PAYMENTS,
      description: 'Payments recorded against it.',
    }),
    deliveries: Type.Optional(
      Type.Array(DeliveryRecord(), {
        maxItems: MAX_DOCUMENT_DELIVERIES,
        description: 'Every mail billing.document.send sent of it, oldest first.',
      }),
    ),
  }),
});

const SORT_FIELDS = [
  'document_date',
  'created_at',
  'total',
  'number',
  'counterparty_name',
  'status',
] as const;

/**
 * billing.document.list and .search have "identical shapes": the same filters, sorting and paging, and
 * a page of document records. They differ in id and wording only.
 */
function documentQueryCapability<const Id extends string>(id: Id, summary: string, tags: readonly string[]) {
  return defineCapability({
    id,
    version: '1.0.0',
    summary,
    tags,
    risk_level: 'low',
    scopes: ['billing:read'],
    cost_credits: '0',
    mutating: false,
    dry_run: 'supported',
    input_schema: Input({
      document_type: Type.Optional(Described(DocumentType(), 'Only documents of this type.')),
      search: Type.Optional(
        Described(
          Type.String({ maxLength: 200 }),
          'Words matched by prefix against number, title and counterparty name.',
          ['INV-2025', 'Acme'],
        ),
      ),
      status: Type.Optional(Described(DocumentStatus(), 'Only documents in this status.')),
      open_filter: Type.Optional(
        Described(
          OneOf(['all', 'open', 'paid']),
          'all (default); open = issued with a balance still due (open, sent or partially_paid); paid = payment_status paid.',
        ),
      ),
      date_from: Type.Optional(Described(DateString(), 'Only documents dated on or after this day.')),
      date_to: Type.Optional(Described(DateString(), 'Only documents dated on or before this day.')),
      sort_by: Type.Optional(Described(OneOf(SORT_FIELDS), 'Sort field; created_at when left out.')),
      ascending: Type.Optional(
        Described(Type.Boolean(), 'Oldest/smallest first; false (newest first) when left out.'),
      ),
      ...PagingQuery(),
    }),
    output_schema: Page(DocumentRecord()),
  });
}

/** billing.document.list. */
export const billingDocumentList = documentQueryCapability(
  'billing.document.list',
  'List billing documents with filters, sorting and paging.',
  ['billing', 'document', 'list'],
);

/** billing.document.search. */
export const billingDocumentSearch = documentQueryCapability(
  'billing.document.search',
  'Search billing documents by text with filters, sorting and paging.',
  ['billing', 'document', 'search'],
);

/** Billing document capabilities (create, convert, read, list, search). */
export const billingDocumentCapabilities = [
  billingConvertQuoteToOrder,
  billingConvertOrderToInvoice,
  billingCreateDraft,
  billingDocumentRead,
  billingDocumentList,
  billingDocumentSearch,
] as const;
