import { Type } from '@sinclair/typebox';
import { DisplayText, NullableDisplayText, NullableMultilineText } from '../schemas/display-text.js';
import { MoneyAmount, Percent } from '../schemas/numbers.js';
import { Currency, DateString, Email, Nullable, Timestamp, Uuid } from '../schemas/primitives.js';
import { E_INVOICE_FORMATS } from './billing-delivery.js';
import { ExchangeRate } from './billing-documents.js';
import { DocumentRecord, DocumentStatus, DocumentType, ItemType, ReminderRecord } from './billing-records.js';
import { Input, NullableString, OneOf, Output, Page, PagingQuery } from './common.js';
import { defineCapability } from './types.js';

/**
 * Billing capabilities the spec leaves out and a quote-to-cash flow needs (issue 14): customers and
 * vendors, catalog items, finalize (the number), void and reminders. Same style as the spec's own.
 */

export const ACCOUNT_TYPES = ['customer', 'vendor', 'both'] as const;

/** E-invoice endpoint schemes (BT-49-1) create_draft accepts too. */
export const E_INVOICE_SCHEMES = ['EM', '0204', '0088', '9915'] as const;

/** ISO 3166-1 alpha-2, upper case. */
const CountryCode = () => Type.String({ pattern: '^[A-Z]{2}$' });

// Every text of an account, an item or a reminder reaches a document or a mail: one-line texts refuse
// control characters (`display-text`), notes and bodies all but tab and line breaks (`multiline-text`).
const text = () => Type.Optional(NullableDisplayText(1000));
const lines = (maxLength = 1000) => Type.Optional(NullableMultilineText(maxLength));
const ACCOUNT_TEXTS = {
  legal_name: text(),
  address_line1: text(),
  address_line2: text(),
  postal_code: text(),
  city: text(),
  state: text(),
  vat_id: text(),
  buyer_reference: text(),
  e_invoice_endpoint_id: text(),
  notes: lines(),
};

/** A customer or vendor as saved and searched. */
const AccountRecord = () =>
  Output({
    id: Uuid(),
    account_type: OneOf(ACCOUNT_TYPES),
    name: Type.String(),
    legal_name: NullableString(),
    address_line1: NullableString(),
    address_line2: NullableString(),
    postal_code: NullableString(),
    city: NullableString(),
    state: NullableString(),
    country_code: NullableString(),
    vat_id: NullableString(),
    email: NullableString(),
    buyer_reference: NullableString(),
    e_invoice_endpoint_id: NullableString(),
    e_invoice_endpoint_scheme_id: NullableString(),
    e_invoice_format: Nullable(OneOf(E_INVOICE_FORMATS)),
    default_currency: NullableString(),
    payment_terms_days: Nullable(Type.Integer()),
    notes: NullableString(),
    is_active: Type.Boolean(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  });

/** billing.account.save. */
export const billingAccountSave = defineCapability({
  id: 'billing.account.save',
  version: '1.0.0',
  summary:
    'Create or update (with id) a customer or vendor: name, address, country, VAT id, e-invoice routing, currency, payment terms.',
  tags: ['billing', 'account', 'customer', 'vendor', 'save'],
  risk_level: 'medium',
  scopes: ['billing:write'],
  cost_credits: '0',
  mutating: true,
  dry_run: 'supported',
  input_schema: Input({
    name: DisplayText(1, 500),
    id: Type.Optional(Uuid()),
    account_type: Type.Optional(OneOf(ACCOUNT_TYPES)),
    ...ACCOUNT_TEXTS,
    country_code: Type.Optional(Nullable(CountryCode())),
    email: Type.Optional(Nullable(Email())),
    e_invoice_endpoint_scheme_id: Type.Optional(Nullable(OneOf(E_INVOICE_SCHEMES))),
    /** What billing.document.send attaches besides the PDF; null means `pdf` (the PDF alone). */
    e_invoice_format: Type.Optional(Nullable(OneOf(E_INVOICE_FORMATS))),
    default_currency: Type.Optional(Nullable(Currency())),
    payment_terms_days: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 365 }))),
    is_active: Type.Optional(Type.Boolean()),
  }),
  output_schema: Output({ account: AccountRecord(), created: Type.Boolean() }),
});

/** billing.account.search. */
export const billingAccountSearch = defineCapability({
  id: 'billing.account.search',
  version: '1.0.0',
  summary: 'Search customers and vendors by name, legal name, email or VAT id.',
  tags: ['billing', 'account', 'customer', 'vendor', 'search'],
  risk_level: 'low',
  scopes: ['billing:read'],
  cost_credits: '0',
  mutating: false,
  dry_run: 'supported',
  input_schema: Input({
    query: Type.Optional(Type.String({ maxLength: 200 })),
    account_type: Type.Optional(OneOf(ACCOUNT_TYPES)),
    active_only: Type.Optional(Type.Boolean()),
    ...PagingQuery(),
  }),
  output_schema: Page(AccountRecord()),
});

/** billing.item.save. */
export const billingItemSave = defineCapability({
  id: 'billing.item.save',
  version: '1.0.0',
  summary: 'Create or update (with id) a catalog item (service, product, fee, discount) for document lines.',
  tags: ['billing', 'item', 'catalog', 'save'],
  risk_level: 'medium',
  scopes: ['billing:write'],
  cost_credits: '0',
  mutating: true,
  dry_run: 'supported',
  input_schema: Input({
    name: DisplayText(1, 500),
    item_type: ItemType(),
    unit_price: MoneyAmount(),
    id: Type.Optional(Uuid()),
    sku: text(),
    description: lines(),
    unit: text(),
    currency: Type.Optional(Currency()),
    tax_name: text(),
    tax_percent: Type.Optional(Nullable(Percent())),
    is_active: Type.Optional(Type.Boolean()),
  }),
  output_schema: Output({
    item: Output({
      id: Uuid(),
      name: Type.String(),
      sku: NullableString(),
      item_type: ItemType(),
      description: NullableString(),
      unit: NullableString(),
      unit_price: Type.Number(),
      currency: Currency(),
      tax_name: NullableString(),
      tax_percent: Nullable(Type.Number()),
      is_active: Type.Boolean(),
      updated_at: Timestamp(),
    }),
    created: Type.Boolean(),
  }),
});

/** billing.document.finalize. */
export const billingDocumentFinalize = defineCapability({
  id: 'billing.document.finalize',
  version: '1.0.0',
  summary:
    'Issue a draft: assign its gap-free number (per profile, type and year), set status open and freeze lines, totals, counterparty and issuer.',
  tags: ['billing', 'document', 'finalize', 'issue', 'number', 'invoice'],
  risk_level: 'medium',
  scopes: ['billing:write'],
  cost_credits: '0.10',
  mutating: true,
  dry_run: 'supported',
  input_schema: Input({
    document_id: Uuid(),
    // Beyond the spec: the rate for the VAT total in EUR (BT-111) of a foreign-currency document with
    // VAT, given or replaced here and frozen with the document (else the draft's rate applies).
    exchange_rate: Type.Optional(ExchangeRate()),
  }),
  output_schema: Output({
    document: DocumentRecord(),
    number: Type.String(),
    issued_at: Timestamp(),
  }),
});

/** billing.document.void. */
export const billingDocumentVoid = defineCapability({
  id: 'billing.document.void',
  version: '1.0.0',
  summary:
    'Void a draft, or an issued document without payments (operator-approved: risk high). Correct an issued invoice with a credit note instead where you can.',
  tags: ['billing', 'document', 'void', 'cancel'],
  risk_level: 'high',
  scopes: ['billing:write'],
  cost_credits: '0',
  mutating: true,
  dry_run: 'supported',
  input_schema: Input({
    document_id: Uuid(),
    reason: lines(),
  }),
  output_schema: Output({
    document_id: Uuid(),
    previous_status: DocumentStatus(),
    status: Type.Literal('void'),
    number: NullableString(),
    document_type: DocumentType(),
  }),
});

/** billing.reminder.create. */
export const billingReminderCreate = defineCapability({
  id: 'billing.reminder.create',
  version: '1.0.0',
  summary:
    'Create the next reminder (payment_reminder, first_reminder, second_reminder, final_notice) for an overdue open invoice, with optional fee and interest.',
  tags: ['billing', 'reminder', 'dunning', 'create'],
  risk_level: 'medium',
  scopes: ['billing:write'],
  cost_credits: '0.05',
  mutating: true,
  dry_run: 'supported',
  input_schema: Input({
    invoice_id: Uuid(),
    reminder_date: Type.Optional(DateString()),
    fee_amount: Type.Optional(MoneyAmount()),
    interest_amount: Type.Optional(MoneyAmount()),
    subject: text(),
    body: lines(10000),
  }),
  output_schema: Output({ reminder: ReminderRecord() }),
});

/** The billing capabilities beyond the spec. */
export const billingOperationCapabilities = [
  billingAccountSave,
  billingAccountSearch,
  billingItemSave,
  billingDocumentFinalize,
  billingDocumentVoid,
  billingReminderCreate,
] as const;
