import { Type } from '@sinclair/typebox';
import { DisplayText, NullableDisplayText, NullableMultilineText } from '../schemas/display-text.js';
import { DECIMAL_6_FORMAT, MoneyAmount, Percent, Quantity } from '../schemas/numbers.js';
import { Closed, Currency, DateString, FreeObject, Nullable, Uuid } from '../schemas/primitives.js';
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

/** A document created by create_draft or a conversion: "status is always `draft`". */
const DraftStatus = () => Type.Literal('draft');

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
      source_document_id: Uuid(),
      document_date: Type.Optional(DateString()),
      title: Type.Optional(NullableDisplayText(1000)),
    }),
    output_schema: Output({
      document_id: Uuid(),
      source_document_id: Uuid(),
      source_document_type: DocumentType(),
      document_type: DocumentType(),
      status: DraftStatus(),
      payment_status: Nullable(DocumentPaymentStatus()),
      number: NullableString(),
      line_count: Count(),
      created: Type.Boolean(),
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

/**
 * The value of one unit of the document currency in the VAT accounting currency (e.g. 1 USD = 0.92 EUR
 * → 0.92), for the VAT total in that currency (EN 16931 BT-111) of a foreign-currency document.
 */
export const ExchangeRate = () =>
  Type.Number({
    exclusiveMinimum: 0,
    maximum: 1_000_000,
    format: DECIMAL_6_FORMAT,
    description:
      'Value of 1 unit of the document currency in the VAT accounting currency (1 USD = 0.92 EUR → 0.92); required to finalize a foreign-currency document with VAT.',
  });

/**
 * How a document is taxed (the EN 16931 VAT category follows from it): domestic S (Z at 0 %),
 * zero_rated Z, exempt E, reverse_charge AE, intra_community_supply K, export G, not_subject_to_vat O
 * (outside the scope of VAT, e.g. a service taxed where the buyer is; states no VAT ids).
 */
export const TAX_TREATMENTS = [
  'domestic',
  'zero_rated',
  'exempt',
  'reverse_charge',
  'intra_community_supply',
  'export',
  'not_subject_to_vat',
] as const;

/**
 * Most lines one document takes. Stripe allows 250 invoice items per invoice, PayPal and Paddle 100:
 * businesses that bill more (a utility's usage records) attach a statement and invoice its sums. At 250
 * lines every output renders in bounded time (docs/billing.md has the measurements).
 */
export const MAX_DOCUMENT_LINES = 250;

/** Most payments one document records (a plan of monthly instalments over 80 years fits). */
export const MAX_DOCUMENT_PAYMENTS = 1000;

/** Most deliveries (sent mails) one document keeps. */
export const MAX_DOCUMENT_DELIVERIES = 100;

/** Most document-level discounts (EN 16931 BG-20) one document takes. */
export const MAX_DOCUMENT_DISCOUNTS = 20;

/** One line of text a document shows (a name, a code, a reference): no control characters. */
const OneLine = () => Type.Optional(NullableDisplayText(1000));
/** Text a document shows over several lines (a description, notes, terms). */
const Lines = () => Type.Optional(NullableMultilineText(1000));

const DraftLine = () =>
  Input({
    item_name: DisplayText(1, 500),
    quantity: Quantity(),
    unit_price: MoneyAmount(),
    item_id: Type.Optional(Nullable(Uuid())),
    sku: OneLine(),
    description: Lines(),
    unit: OneLine(),
    tax_name: OneLine(),
    discount_amount: Type.Optional(MoneyAmount()),
    tax_percent: Type.Optional(Percent()),
  });

/** billing.document.create_draft. */
export const billingCreateDraft = defineCapability({
  id: 'billing.document.create_draft',
  version: '1.0.0',
  summary: 'Create a draft quote, sales order, invoice, credit note or self-billing invoice with its lines.',
  tags: ['billing', 'document', 'create', 'draft', 'invoice', 'quote'],
  risk_level: 'medium',
  scopes: ['billing:write'],
  cost_credits: '0.10',
  mutating: true,
  dry_run: 'supported',
  input_schema: Input({
    document_type: DocumentType(),
    document_date: DateString(),
    lines: Type.Array(DraftLine(), {
      minItems: 1,
      maxItems: MAX_DOCUMENT_LINES,
      description: `1 to ${MAX_DOCUMENT_LINES} lines; every line amount (quantity × unit_price) and the document's totals at most 10^12.`,
    }),
    account_id: Type.Optional(Nullable(Uuid())),
    vendor_id: Type.Optional(Nullable(Uuid())),
    document_profile_id: Type.Optional(Nullable(Uuid())),
    title: Type.Optional(NullableDisplayText(1000)),
    buyer_reference: OneLine(),
    order_reference: OneLine(),
    customer_e_invoice_endpoint_id: OneLine(),
    notes: Lines(),
    terms: Lines(),
    valid_until: Type.Optional(Nullable(DateString())),
    due_date: Type.Optional(Nullable(DateString())),
    service_date: Type.Optional(Nullable(DateString())),
    customer_e_invoice_endpoint_scheme_id: Type.Optional(
      Type.Union([
        Type.Literal('EM'),
        Type.Literal('0204'),
        Type.Literal('0088'),
        Type.Literal('9915'),
        Type.Null(),
      ]),
    ),
    currency: Type.Optional(Currency()),
    shipping_address: Type.Optional(FreeObject()),
    // Beyond the spec (issue 14): the tax treatment (derived from issuer and buyer when left out),
    // document-level discounts (EN 16931 BG-20, each on one VAT rate) and the invoice a credit note
    // corrects.
    tax_treatment: Type.Optional(OneOf(TAX_TREATMENTS)),
    // The VAT total in the VAT accounting currency (BT-6, BT-111) of a document in another currency:
    // the currency (EUR when left out) and the rate; finalize may give or replace the rate and freezes it.
    vat_accounting_currency: Type.Optional(Currency()),
    exchange_rate: Type.Optional(Nullable(ExchangeRate())),
    document_discounts: Type.Optional(
      Type.Array(
        Input({
          amount: MoneyAmount({ positive: true }),
          tax_percent: Type.Optional(Percent()),
          reason: OneLine(),
        }),
        { maxItems: MAX_DOCUMENT_DISCOUNTS },
      ),
    ),
    corrects_document_id: Type.Optional(Nullable(Uuid())),
  }),
  output_schema: Output({
    document_id: Uuid(),
    document_type: DocumentType(),
    status: DraftStatus(),
    number: NullableString(),
    currency: Currency(),
    totals: Type.Object(
      {
        subtotal: Type.Number(),
        discount_total: Type.Number(),
        tax_total: Type.Number(),
        reverse_charge_tax_total: Type.Number(),
        total: Type.Number(),
        balance: Type.Number(),
      },
      Closed,
    ),
    line_count: Type.Integer({ minimum: 1 }),
    tax_treatment: Type.Object(
      {
        type: Type.String(),
        label: Type.String(),
        customer_tax_id: Nullable(Type.String()),
        customer_country_code: Nullable(Type.String()),
      },
      Closed,
    ),
    payment_status: Type.Optional(Nullable(DocumentPaymentStatus())),
  }),
});

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
  input_schema: Input({ document_id: Uuid() }),
  output_schema: Output({
    document: DocumentRecord(),
    lines: Type.Array(LineRecord(), { maxItems: MAX_DOCUMENT_LINES }),
    payments: Type.Array(PaymentRecord(), { maxItems: MAX_DOCUMENT_PAYMENTS }),
    /** Every mail billing.document.send sent of it, oldest first. */
    deliveries: Type.Optional(Type.Array(DeliveryRecord(), { maxItems: MAX_DOCUMENT_DELIVERIES })),
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
      document_type: Type.Optional(DocumentType()),
      search: Type.Optional(Type.String({ maxLength: 200 })),
      status: Type.Optional(DocumentStatus()),
      open_filter: Type.Optional(OneOf(['all', 'open', 'paid'])),
      date_from: Type.Optional(DateString()),
      date_to: Type.Optional(DateString()),
      sort_by: Type.Optional(OneOf(SORT_FIELDS)),
      ascending: Type.Optional(Type.Boolean()),
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
