import { Type } from '@sinclair/typebox';
import { CountryCode, E_INVOICE_SCHEME_DESCRIPTION, UnitOfMeasure } from '../schemas/code-lists.js';
import { DisplayText, NullableDisplayText, NullableMultilineText } from '../schemas/display-text.js';
import { MoneyAmount, Percent } from '../schemas/numbers.js';
import { Currency, DateString, Described, Email, Nullable, Timestamp, Uuid } from '../schemas/primitives.js';
import { ExchangeRate } from './billing-create-draft.js';
import { E_INVOICE_FORMAT_DESCRIPTION, E_INVOICE_FORMATS } from './billing-delivery.js';
import {
  DocumentRecord,
  DocumentStatus,
  DocumentType,
  ItemRecord,
  ItemType,
  ReminderRecord,
} from './billing-records.js';
import { Input, NullableString, OneOf, Output, Page, PagingQuery } from './common.js';
import { defineCapability } from './types.js';

/**
 * Billing capabilities the spec leaves out and a quote-to-cash flow needs (issue 14): customers and
 * vendors, catalog items, finalize (the number), void and reminders. Same style as the spec's own.
 */

export const ACCOUNT_TYPES = ['customer', 'vendor', 'both'] as const;

/** E-invoice endpoint schemes (BT-49-1) create_draft accepts too. */
export const E_INVOICE_SCHEMES = ['EM', '0204', '0088', '9915'] as const;

// Every text of an account, an item or a reminder reaches a document or a mail: one-line texts refuse
// control characters (`display-text`), notes and bodies all but tab and line breaks (`multiline-text`).
const text = (description: string, examples?: readonly unknown[]) =>
  Type.Optional(Described(NullableDisplayText(1000), description, examples));
const lines = (description: string, maxLength = 1000) =>
  Type.Optional(Described(NullableMultilineText(maxLength), description));

/** What each account text means (the same words on input and output). */
const ACCOUNT_TEXT_MEANINGS = {
  legal_name: ['Registered legal name when it differs from name (EN 16931 BT-45).'],
  address_line1: ['Street and number.', ['Hauptstraße 1']],
  address_line2: ['Additional address line (building, floor, c/o).'],
  postal_code: ['Postal code.', ['10115']],
  city: ['City.', ['Berlin']],
  state: ['State, region or province, where the address needs one.'],
  vat_id: [
    "VAT identification number with its country prefix (BT-48); a foreign EU buyer's VAT id makes new documents reverse charge.",
    ['DE123456789'],
  ],
  buyer_reference: [
    "The buyer's reference (BT-10) copied to new documents; for German public buyers the Leitweg-ID.",
    ['04011000-12345-34'],
  ],
  e_invoice_endpoint_id: [
    'Electronic address e-invoices are routed to (BT-49), in the scheme of e_invoice_endpoint_scheme_id.',
    ['invoices@buyer.example'],
  ],
  notes: ['Internal notes on the account; not printed.'],
} as const satisfies Record<string, readonly [string, ...unknown[]]>;

const ACCOUNT_TEXTS = {
  legal_name: text(...ACCOUNT_TEXT_MEANINGS.legal_name),
  address_line1: text(...ACCOUNT_TEXT_MEANINGS.address_line1),
  address_line2: text(...ACCOUNT_TEXT_MEANINGS.address_line2),
  postal_code: text(...ACCOUNT_TEXT_MEANINGS.postal_code),
  city: text(...ACCOUNT_TEXT_MEANINGS.city),
  state: text(...ACCOUNT_TEXT_MEANINGS.state),
  vat_id: text(...ACCOUNT_TEXT_MEANINGS.vat_id),
  buyer_reference: text(...ACCOUNT_TEXT_MEANINGS.buyer_reference),
  e_invoice_endpoint_id: text(...ACCOUNT_TEXT_MEANINGS.e_invoice_endpoint_id),
  notes: lines(ACCOUNT_TEXT_MEANINGS.notes[0]),
};

/** An account text as answered: the string saved, null when none. */
const savedText = (meaning: readonly [string, ...unknown[]]) =>
  Described(NullableString(), `${meaning[0]} Null when none.`, meaning[1] as readonly unknown[] | undefined);

const AccountType = () =>
  Described(
    OneOf(ACCOUNT_TYPES),
    'customer (billed with invoices), vendor (bills you; counterparty of self-billing invoices) or both.',
  );
const PaymentTermsDays = () =>
  Type.Integer({
    minimum: 0,
    maximum: 365,
    description:
      'Days after the document date an invoice to this account is due; sets due_date of new invoices.',
    examples: [14, 30],
  });

/** A customer or vendor as saved and searched. */
const AccountRecord = () =>
  Output({
    id: Described(
      Uuid(),
      'Id of the account; pass it as account_id (or vendor_id) to billing.document.create_draft.',
    ),
    account_type: AccountType(),
    name: Described(Type.String(), 'Display name of the customer or vendor, printed on documents.'),
    legal_name: savedText(ACCOUNT_TEXT_MEANINGS.legal_name),
    address_line1: savedText(ACCOUNT_TEXT_MEANINGS.address_line1),
    address_line2: savedText(ACCOUNT_TEXT_MEANINGS.address_line2),
    postal_code: savedText(ACCOUNT_TEXT_MEANINGS.postal_code),
    city: savedText(ACCOUNT_TEXT_MEANINGS.city),
    state: savedText(ACCOUNT_TEXT_MEANINGS.state),
    country_code: Described(
      NullableString(),
      'ISO 3166-1 alpha-2 country code of the address; null when unknown.',
      ['DE'],
    ),
    vat_id: savedText(ACCOUNT_TEXT_MEANINGS.vat_id),
    email: Described(NullableString(), 'Where billing.document.send mails documents; null when none.'),
    buyer_reference: savedText(ACCOUNT_TEXT_MEANINGS.buyer_reference),
    e_invoice_endpoint_id: savedText(ACCOUNT_TEXT_MEANINGS.e_invoice_endpoint_id),
    e_invoice_endpoint_scheme_id: Described(NullableString(), E_INVOICE_SCHEME_DESCRIPTION),
    e_invoice_format: Described(
      Nullable(OneOf(E_INVOICE_FORMATS)),
      `What billing.document.send sends by default; null means pdf. ${E_INVOICE_FORMAT_DESCRIPTION}`,
    ),
    default_currency: Described(
      NullableString(),
      "ISO 4217 currency code new documents for this account use; null: the profile's.",
    ),
    payment_terms_days: Described(
      Nullable(Type.Integer()),
      'Days to pay after the document date; null: no default due date.',
    ),
    notes: savedText(ACCOUNT_TEXT_MEANINGS.notes),
    is_active: Described(Type.Boolean(), 'False for an account kept for history but no longer offered.'),
    created_at: Described(Timestamp(), 'When the account was created.'),
    updated_at: Described(Timestamp(), 'When the account was last saved.'),
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
    name: Described(DisplayText(1, 500), 'Display name of the customer or vendor, printed on documents.', [
      'Acme GmbH',
    ]),
    id: Type.Optional(Described(Uuid(), 'Left out: a new account. Given: the account to update.')),
    account_type: Type.Optional(Described(AccountType(), 'customer when left out on create.')),
    ...ACCOUNT_TEXTS,
    country_code: Type.Optional(
      Described(
        Nullable(CountryCode()),
        'Country of the address; with vat_id it decides the tax treatment new documents derive.',
      ),
    ),
    email: Type.Optional(
      Described(Nullable(Email()), 'Where billing.document.send mails documents by default.'),
    ),
    e_invoice_endpoint_scheme_id: Type.Optional(
      Described(Nullable(OneOf(E_INVOICE_SCHEMES)), E_INVOICE_SCHEME_DESCRIPTION, ['0204', 'EM']),
    ),
    e_invoice_format: Type.Optional(
      Described(
        Nullable(OneOf(E_INVOICE_FORMATS)),
        `What billing.document.send sends by default; null means pdf. ${E_INVOICE_FORMAT_DESCRIPTION}`,
      ),
    ),
    default_currency: Type.Optional(
      Described(Nullable(Currency()), "Currency of new documents for this account; null: the profile's."),
    ),
    payment_terms_days: Type.Optional(
      Described(Nullable(PaymentTermsDays()), 'Null: invoices to this account get no default due date.'),
    ),
    is_active: Type.Optional(
      Described(Type.Boolean(), 'False retires the account from searches with active_only.'),
    ),
  }),
  output_schema: Output({
    account: Described(AccountRecord(), 'The account as saved.'),
    created: Described(Type.Boolean(), 'True when a new account was created, false when one was updated.'),
  }),
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
    query: Type.Optional(
      Described(
        Type.String({ maxLength: 200 }),
        'Text found anywhere in name, legal name, email or VAT id (case-insensitive).',
        ['acme'],
      ),
    ),
    account_type: Type.Optional(
      Described(AccountType(), 'Only accounts of this type (both matches customer and vendor searches).'),
    ),
    active_only: Type.Optional(Described(Type.Boolean(), 'Leave out inactive accounts.')),
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
    name: Described(DisplayText(1, 500), 'Name printed on document lines.', ['Consulting hour']),
    item_type: ItemType(),
    unit_price: Described(MoneyAmount(), 'Net price of one unit in `currency`, before VAT.', [120]),
    id: Type.Optional(Described(Uuid(), 'Left out: a new item. Given: the item to update.')),
    sku: text("Seller's article number (BT-155)."),
    description: lines('Longer text about the item.'),
    unit: Type.Optional(UnitOfMeasure(NullableDisplayText(1000))),
    currency: Type.Optional(
      Described(Currency(), "Currency of unit_price; the default profile's, else EUR, when left out."),
    ),
    tax_name: text('Label of the VAT rate printed on lines.', ['USt. 19 %']),
    tax_percent: Type.Optional(
      Described(
        Nullable(Percent()),
        'VAT rate in percent lines of this item get (19 means 19 %); null: 0.',
        [19, 7],
      ),
    ),
    is_active: Type.Optional(
      Described(Type.Boolean(), 'False retires the item from searches with active_only.'),
    ),
  }),
  output_schema: Output({
    item: Described(ItemRecord(), 'The item as saved.'),
    created: Described(Type.Boolean(), 'True when a new item was created, false when one was updated.'),
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
    document_id: Described(Uuid(), 'The draft to issue.'),
    // Beyond the spec: the rate for the VAT total in EUR (BT-111) of a foreign-currency document with
    // VAT, given or replaced here and frozen with the document (else the draft's rate applies).
    exchange_rate: Type.Optional(
      Described(ExchangeRate(), "Given here, it replaces the draft's rate and is frozen with the document."),
    ),
  }),
  output_schema: Output({
    document: Described(DocumentRecord(), 'The issued document (status open).'),
    number: Described(
      Type.String(),
      "The gap-free number assigned from the profile's number pattern for this type and year.",
      ['INV-2025-00042'],
    ),
    issued_at: Described(Timestamp(), 'When the document was issued.'),
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
    document_id: Described(Uuid(), 'The draft, or the issued document without payments, to void.'),
    reason: lines('Why it is voided (free text for the record).'),
  }),
  output_schema: Output({
    document_id: Described(Uuid(), 'The voided document.'),
    previous_status: Described(DocumentStatus(), 'Its status before voiding.'),
    status: Described(Type.Literal('void'), 'Always void.'),
    number: Described(
      NullableString(),
      'Its number, kept so the sequence stays gap-free; null for a voided draft.',
    ),
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
    invoice_id: Described(Uuid(), 'The issued invoice to remind; it must be open and past its due date.'),
    reminder_date: Type.Optional(Described(DateString(), 'Date of the reminder; today (UTC) when left out.')),
    fee_amount: Type.Optional(
      Described(MoneyAmount(), 'Dunning fee in the invoice currency; 0 when left out.', [5]),
    ),
    interest_amount: Type.Optional(
      Described(MoneyAmount(), 'Late-payment interest in the invoice currency; 0 when left out.'),
    ),
    subject: text('Subject line; a standard one for the level when left out.'),
    body: lines('Reminder text; a standard text for the level when left out.', 10000),
  }),
  output_schema: Output({
    reminder: Described(ReminderRecord(), 'The reminder created, at the next level.'),
  }),
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
