import { Type } from '@sinclair/typebox';
import {
  E_INVOICE_SCHEME_DESCRIPTION,
  TAX_TREATMENT_DESCRIPTION,
  UnitOfMeasure,
} from '../schemas/code-lists.js';
import { DisplayText, NullableDisplayText, NullableMultilineText } from '../schemas/display-text.js';
import { DECIMAL_6_FORMAT, MoneyAmount, Percent, Quantity } from '../schemas/numbers.js';
import {
  Closed,
  Currency,
  DateString,
  Described,
  FreeObject,
  Nullable,
  Uuid,
} from '../schemas/primitives.js';
import { DocumentPaymentStatus, DocumentType } from './billing-records.js';
import { Input, NullableString, OneOf, Output } from './common.js';
import { defineCapability } from './types.js';

// billing.document.create_draft: its lines, VAT treatments and bounds (the other document capabilities are
// in billing-documents.ts).

/** A document created by create_draft or a conversion: "status is always `draft`". */
export const DraftStatus = () =>
  Described(
    Type.Literal('draft'),
    'Always draft: editable and without a number until billing.document.finalize.',
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
const OneLine = (description: string, examples?: readonly unknown[]) =>
  Type.Optional(Described(NullableDisplayText(1000), description, examples));
/** Text a document shows over several lines (a description, notes, terms). */
const Lines = (description: string) => Type.Optional(Described(NullableMultilineText(1000), description));
/** A VAT rate in percent, e.g. 19 for 19 %. */
const TaxPercent = (description: string) => Described(Percent(), description, [19, 7, 0]);

const DraftLine = () =>
  Input({
    item_name: Described(DisplayText(1, 500), 'Name of what is sold, printed on the line.', ['Consulting']),
    quantity: Described(Quantity(), 'How many units (in `unit`); up to 6 decimals.', [3, 1.5]),
    unit_price: Described(
      MoneyAmount(),
      'Net price of one unit in the document currency, before VAT and discounts.',
      [120, 49.9],
    ),
    item_id: Type.Optional(
      Described(
        Nullable(Uuid()),
        'A catalog item (billing.item.save) whose sku, unit, tax_name and tax_percent fill what the line leaves out.',
      ),
    ),
    sku: OneLine("Seller's article number (BT-155); the item's when left out."),
    description: Lines('Longer text printed under the line name.'),
    unit: Type.Optional(UnitOfMeasure(NullableDisplayText(1000))),
    tax_name: OneLine(
      'Label of the VAT rate printed on the line (e.g. "USt. 19 %"); the item\'s when left out.',
    ),
    discount_amount: Type.Optional(
      Described(
        MoneyAmount(),
        'Discount on this line in the document currency, at most quantity × unit_price; 0 when left out.',
      ),
    ),
    tax_percent: Type.Optional(
      TaxPercent(
        "VAT rate of the line in percent; the item's, else 0, when left out. Outside domestic treatment the VAT charged is 0 whatever the rate.",
      ),
    ),
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
    document_date: Described(DateString(), 'Issue date printed on the document (EN 16931 BT-2).'),
    lines: Type.Array(DraftLine(), {
      minItems: 1,
      maxItems: MAX_DOCUMENT_LINES,
      description: `1 to ${MAX_DOCUMENT_LINES} lines; every line amount (quantity × unit_price) and the document's totals at most 10^12.`,
    }),
    account_id: Type.Optional(
      Described(
        Nullable(Uuid()),
        'The customer (billing.account.save) billed: its name, address, VAT id, currency and payment terms are frozen on the document.',
      ),
    ),
    vendor_id: Type.Optional(
      Described(
        Nullable(Uuid()),
        'The vendor account; it is the counterparty of a self_billing_invoice (else account_id is).',
      ),
    ),
    document_profile_id: Type.Optional(
      Described(
        Nullable(Uuid()),
        "The issuer profile (billing.profile.save) whose issuer data, terms and number pattern apply; the organization's default profile when left out.",
      ),
    ),
    title: Type.Optional(Described(NullableDisplayText(1000), 'Title printed above the lines.')),
    buyer_reference: OneLine(
      "The buyer's reference (EN 16931 BT-10); for German public buyers the Leitweg-ID. The account's when left out.",
      ['04011000-12345-34'],
    ),
    order_reference: OneLine("The buyer's purchase order number (BT-13)."),
    customer_e_invoice_endpoint_id: OneLine(
      "The buyer's e-invoice address (BT-49) in the scheme of customer_e_invoice_endpoint_scheme_id; the account's when left out.",
      ['invoices@buyer.example'],
    ),
    notes: Lines('Free text printed on the document (BT-22).'),
    terms: Lines("Terms printed on the document; the profile's terms of this document type when left out."),
    valid_until: Type.Optional(
      Described(Nullable(DateString()), 'Last day a quote may be accepted; null when not set.'),
    ),
    due_date: Type.Optional(
      Described(
        Nullable(DateString()),
        "Payment due date (BT-9); when left out, an invoice's is document_date plus the account's payment_terms_days, else null.",
      ),
    ),
    service_date: Type.Optional(
      Described(
        Nullable(DateString()),
        'Day the goods were delivered or the service performed (BT-72, the Leistungsdatum); null when not stated.',
      ),
    ),
    customer_e_invoice_endpoint_scheme_id: Type.Optional(
      Described(
        Type.Union([
          Type.Literal('EM'),
          Type.Literal('0204'),
          Type.Literal('0088'),
          Type.Literal('9915'),
          Type.Null(),
        ]),
        `${E_INVOICE_SCHEME_DESCRIPTION} The account's when left out.`,
        ['0204', 'EM'],
      ),
    ),
    currency: Type.Optional(
      Described(
        Currency(),
        "Currency of every amount. When left out: the corrected invoice's, else the account's default_currency, else the profile's, else EUR.",
      ),
    ),
    shipping_address: Type.Optional(
      FreeObject(
        "Where the goods go, when not to the buyer's address (e.g. name, address_line1, postal_code, city, country_code)",
      ),
    ),
    // Beyond the spec (issue 14): the tax treatment (derived from issuer and buyer when left out),
    // document-level discounts (EN 16931 BG-20, each on one VAT rate) and the invoice a credit note
    // corrects.
    tax_treatment: Type.Optional(
      Described(
        OneOf(TAX_TREATMENTS),
        `${TAX_TREATMENT_DESCRIPTION} When left out: reverse_charge for an EU buyer in another member state with a VAT id, export for a buyer outside the EU, else domestic.`,
      ),
    ),
    // The VAT total in the VAT accounting currency (BT-6, BT-111) of a document in another currency:
    // the currency (EUR when left out) and the rate; finalize may give or replace the rate and freezes it.
    vat_accounting_currency: Type.Optional(
      Described(
        Currency(),
        'Currency the VAT total is also stated in (BT-6) when the document is in another currency; EUR when left out.',
      ),
    ),
    exchange_rate: Type.Optional(
      Described(
        Nullable(ExchangeRate()),
        'Null or left out: no rate yet (billing.document.finalize may give it; it is frozen there).',
      ),
    ),
    document_discounts: Type.Optional(
      Type.Array(
        Input({
          amount: Described(
            MoneyAmount({ positive: true }),
            'Net amount taken off, in the document currency.',
          ),
          tax_percent: Type.Optional(
            TaxPercent(
              'The VAT rate whose lines the discount reduces; may be left out when all lines share one rate.',
            ),
          ),
          reason: OneLine('Why the discount is given, printed with it (BT-97).', ['Loyalty discount']),
        }),
        {
          maxItems: MAX_DOCUMENT_DISCOUNTS,
          description: 'Discounts on the whole document (EN 16931 BG-20), each on one VAT rate.',
        },
      ),
    ),
    corrects_document_id: Type.Optional(
      Described(
        Nullable(Uuid()),
        'For a credit_note only: the issued, not voided invoice it corrects (its currency and tax treatment carry over).',
      ),
    ),
  }),
  output_schema: Output({
    document_id: Described(Uuid(), 'Id of the new draft.'),
    document_type: DocumentType(),
    status: DraftStatus(),
    number: Described(NullableString(), 'Null: a draft gets its number at billing.document.finalize.'),
    currency: Described(Currency(), 'Currency of every amount of the document.'),
    totals: Type.Object(
      {
        subtotal: Described(
          Type.Number(),
          'Sum of the line net amounts, before document discounts (BT-106).',
        ),
        discount_total: Described(Type.Number(), 'Sum of the document-level discounts (BT-107).'),
        tax_total: Described(Type.Number(), 'VAT the seller charges (BT-110); 0 outside domestic treatment.'),
        reverse_charge_tax_total: Described(
          Type.Number(),
          'VAT the buyer owes under reverse charge, for information; not part of total.',
        ),
        total: Described(Type.Number(), 'Gross total: subtotal − discount_total + tax_total (BT-112).'),
        balance: Described(Type.Number(), 'Amount still to be paid; equals total on a new draft.'),
      },
      { ...Closed, description: 'Totals in the document currency, rounded to its minor unit.' },
    ),
    line_count: Described(Type.Integer({ minimum: 1 }), 'Lines the draft holds.'),
    tax_treatment: Type.Object(
      {
        type: Described(Type.String(), TAX_TREATMENT_DESCRIPTION),
        label: Described(Type.String(), 'The treatment in words, as printed.', ['Domestic VAT']),
        customer_tax_id: Described(
          Nullable(Type.String()),
          "The buyer's VAT id frozen on the draft; null when none.",
        ),
        customer_country_code: Described(
          Nullable(Type.String()),
          "The buyer's ISO 3166-1 alpha-2 country code; null when the account has none.",
        ),
      },
      { ...Closed, description: 'The tax treatment applied (given, or derived from issuer and buyer).' },
    ),
    payment_status: Type.Optional(
      Described(
        Nullable(DocumentPaymentStatus()),
        'unpaid for an invoice or self-billing invoice, else not_applicable.',
      ),
    ),
  }),
});
