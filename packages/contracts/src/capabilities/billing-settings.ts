import { Type } from '@sinclair/typebox';
import { DisplayText, NullableDisplayText, NullableMultilineText } from '../schemas/display-text.js';
import { Closed, Currency, Described, FreeObject, Nullable, Timestamp, Uuid } from '../schemas/primitives.js';
import { Input, NullableText1000, Output } from './common.js';
import { defineCapability } from './types.js';

const BANK_ACCOUNT_TEXTS = [
  'bank_name',
  'bic',
  'payment_reference_template',
  'creditor_identifier',
  'notes',
] as const;

/** What each bank account text means. */
const BANK_ACCOUNT_MEANINGS: Record<(typeof BANK_ACCOUNT_TEXTS)[number], string> = {
  bank_name: 'Name of the bank, printed with IBAN and BIC.',
  bic: 'BIC / SWIFT code (ISO 9362, 8 or 11 characters), stored upper case.',
  payment_reference_template:
    "How payment references are built for this account (stored for the caller's use).",
  creditor_identifier: "SEPA creditor identifier, for direct debits (stored for the caller's use).",
  notes: 'Internal notes; not printed.',
};

/** The bank account texts that may span lines; the others are one line on a document. */
const BANK_ACCOUNT_MULTILINE: readonly string[] = ['notes'];

const optionalNullableText = () => Type.Optional(NullableText1000());

/** `{ name: Optional(nullable, max 1000) }` for each name (outputs: what was stored; null when none). */
function optionalTexts<const K extends string>(names: readonly K[], meanings: Record<K, string>) {
  return Object.fromEntries(
    names.map((name) => [
      name,
      Type.Optional(Described(NullableText1000(), `${meanings[name]} Null when none.`)),
    ]),
  ) as {
    [P in K]: ReturnType<typeof optionalNullableText>;
  };
}

/**
 * The same fields as inputs: every text reaches a document (the PDF, an e-invoice, a mail), so a
 * one-line text refuses control characters (`display-text`) and a `multiline` one all but tab and line
 * breaks (`multiline-text`), before the e-invoice's XSD would refuse them at output time.
 */
function inputTexts<const K extends string>(
  names: readonly K[],
  multiline: readonly string[],
  meanings: Record<K, string>,
) {
  return Object.fromEntries(
    names.map((name) => [
      name,
      Type.Optional(
        Described(
          multiline.includes(name) ? NullableMultilineText(1000) : NullableDisplayText(1000),
          meanings[name],
        ),
      ),
    ]),
  ) as { [P in K]: ReturnType<typeof optionalNullableText> };
}

/** billing.bank_account.save. */
export const billingBankAccountSave = defineCapability({
  id: 'billing.bank_account.save',
  version: '1.0.0',
  summary: 'Create or update (with id) a bank account shown on documents and used for payment references.',
  tags: ['billing', 'bank_account', 'save', 'settings'],
  risk_level: 'high',
  scopes: ['billing:write'],
  cost_credits: '0',
  mutating: true,
  dry_run: 'required',
  input_schema: Input({
    display_name: Described(DisplayText(1, 200), 'Name the account is known by in the organization.', [
      'Main account',
    ]),
    account_holder: Described(DisplayText(1, 200), 'Name of the account holder, printed on documents.'),
    iban: Described(
      DisplayText(6, 40),
      "IBAN (ISO 13616); spaces allowed, checked against the country's length and check digits, stored without spaces.",
      ['DE89370400440532013000'],
    ),
    id: Type.Optional(Described(Uuid(), 'Left out: a new bank account. Given: the account to update.')),
    ...inputTexts(BANK_ACCOUNT_TEXTS, BANK_ACCOUNT_MULTILINE, BANK_ACCOUNT_MEANINGS),
    currency: Type.Optional(Described(Currency(), 'Currency the account is held in; EUR when left out.')),
    is_default: Type.Optional(
      Described(
        Type.Boolean(),
        "True makes it the organization's default account, printed when a profile names none; the first account is.",
      ),
    ),
    is_active: Type.Optional(Described(Type.Boolean(), 'False retires the account.')),
    data: Type.Optional(FreeObject('Free data of the caller, stored with the account and not printed')),
  }),
  output_schema: Output({
    bank_account: Described(
      Output({
        id: Described(Uuid(), 'Id of the bank account; a profile names it as default_bank_account_id.'),
        organization_id: Described(Uuid(), 'The organization the account belongs to.'),
        display_name: Described(Type.String(), 'Name the account is known by in the organization.'),
        account_holder: Described(Type.String(), 'Name of the account holder, printed on documents.'),
        iban: Described(Type.String(), 'IBAN without spaces.'),
        currency: Described(Currency(), 'Currency the account is held in.'),
        is_default: Described(Type.Boolean(), "True for the organization's default account."),
        is_active: Described(Type.Boolean(), 'False for a retired account.'),
        data: FreeObject('Free data of the caller, stored with the account'),
        ...optionalTexts(BANK_ACCOUNT_TEXTS, BANK_ACCOUNT_MEANINGS),
        created_at: Type.Optional(Described(Timestamp(), 'When the account was created.')),
        updated_at: Type.Optional(Described(Timestamp(), 'When the account was last saved.')),
      }),
      'The bank account as saved.',
    ),
  }),
});

const PROFILE_TEXTS = [
  'issuer_name',
  'issuer_legal_name',
  'issuer_address_line1',
  'issuer_address_line2',
  'issuer_postal_code',
  'issuer_city',
  'issuer_state',
  'issuer_country',
  'issuer_vat_id',
  'issuer_email',
  'issuer_phone',
  'issuer_website',
  'sender_line',
  'footer_text',
  'quote_terms',
  'sales_order_terms',
  'invoice_terms',
  'credit_note_terms',
  'self_billing_invoice_terms',
  'payment_terms',
] as const;

/** What each profile text means. */
const PROFILE_MEANINGS: Record<(typeof PROFILE_TEXTS)[number], string> = {
  issuer_name: 'Name of the issuing business as printed in the letterhead (EN 16931 BT-27).',
  issuer_legal_name: 'Registered legal name when it differs from issuer_name.',
  issuer_address_line1: 'Street and number of the issuer.',
  issuer_address_line2: 'Additional address line of the issuer.',
  issuer_postal_code: 'Postal code of the issuer.',
  issuer_city: 'City of the issuer.',
  issuer_state: 'State or region of the issuer, where the address needs one.',
  issuer_country:
    "ISO 3166-1 alpha-2 country code of the issuer (stored upper case, e.g. DE); with the buyer's country it decides the derived tax treatment.",
  issuer_vat_id: 'VAT identification number of the issuer with its country prefix (BT-31), e.g. DE123456789.',
  issuer_email: 'Contact email of the issuer printed on documents and e-invoices.',
  issuer_phone: 'Contact phone of the issuer.',
  issuer_website: 'Website of the issuer.',
  sender_line:
    'The one-line return address above the recipient in the address window; built from the issuer fields when empty.',
  footer_text: 'Text printed at the foot of every page.',
  quote_terms: 'Terms printed on quotes when a draft gives none.',
  sales_order_terms: 'Terms printed on sales orders when a draft gives none.',
  invoice_terms: 'Terms printed on invoices when a draft gives none.',
  credit_note_terms: 'Terms printed on credit notes when a draft gives none.',
  self_billing_invoice_terms: 'Terms printed on self-billing invoices when a draft gives none.',
  payment_terms:
    'Payment terms printed on invoices (BT-20), e.g. "Payable within 14 days without deduction."',
};

/** The profile texts that may span lines (footer and terms); the others are one line. */
const PROFILE_MULTILINE: readonly string[] = [
  'footer_text',
  'quote_terms',
  'sales_order_terms',
  'invoice_terms',
  'credit_note_terms',
  'self_billing_invoice_terms',
  'payment_terms',
];

/** Most legal footer lines a profile prints under every page. */
export const MAX_LEGAL_FOOTER_LINES = 10;

/**
 * Number patterns per document type (beyond the spec): `{YYYY}`, `{YY}`, `{MM}` and one `{SEQ}` or
 * `{SEQ:n}` (zero-padded to n digits), e.g. `RE-{YYYY}-{SEQ:5}`. The sequence restarts every year.
 */
export const NUMBER_PATTERN =
  '^[A-Za-z0-9/_.#-]*(\\{(YYYY|YY|MM)\\}[A-Za-z0-9/_.#-]*)*\\{SEQ(:[1-9])?\\}[A-Za-z0-9/_.#-]*(\\{(YYYY|YY|MM)\\}[A-Za-z0-9/_.#-]*)*$';
const NumberPattern = (type: string, standard: string) =>
  Type.Optional(
    Described(
      Type.String({ maxLength: 60, pattern: NUMBER_PATTERN }),
      `Number pattern of ${type}s; ${standard} when none is set.`,
      [standard],
    ),
  );
const NumberPatterns = () =>
  Type.Object(
    {
      quote: NumberPattern('quote', 'QT-{YYYY}-{SEQ:5}'),
      sales_order: NumberPattern('sales order', 'SO-{YYYY}-{SEQ:5}'),
      invoice: NumberPattern('invoice', 'INV-{YYYY}-{SEQ:5}'),
      credit_note: NumberPattern('credit note', 'CN-{YYYY}-{SEQ:5}'),
      self_billing_invoice: NumberPattern('self-billing invoice', 'SB-{YYYY}-{SEQ:5}'),
    },
    {
      ...Closed,
      description:
        'Document number patterns per type: {YYYY}, {YY}, {MM} and exactly one {SEQ} or {SEQ:n} (zero-padded to n digits); the sequence restarts every year. Types left out keep their pattern.',
    },
  );

/** billing.profile.save. */
export const billingProfileSave = defineCapability({
  id: 'billing.profile.save',
  version: '1.0.0',
  summary:
    'Create or update (with id) a document profile: issuer data, terms, footer, locale, currency, layout.',
  tags: ['billing', 'profile', 'save', 'settings'],
  risk_level: 'medium',
  scopes: ['billing:write'],
  cost_credits: '0',
  mutating: true,
  dry_run: 'supported',
  input_schema: Input({
    display_name: Described(DisplayText(1, 200), 'Name the profile is known by in the organization.', [
      'Main brand',
    ]),
    id: Type.Optional(Described(Uuid(), 'Left out: a new profile. Given: the profile to update.')),
    profile_key: Type.Optional(
      Described(
        Type.String({ maxLength: 120 }),
        'Stable key of the profile, unique in the organization; default for the first profile, else made from display_name, when left out.',
        ['default'],
      ),
    ),
    is_default: Type.Optional(
      Described(
        Type.Boolean(),
        'True makes it the profile drafts use when they name none; the first profile is.',
      ),
    ),
    is_active: Type.Optional(Described(Type.Boolean(), 'False retires the profile.')),
    default_bank_account_id: Type.Optional(
      Described(
        Nullable(Uuid()),
        'The bank account (billing.bank_account.save) printed on its documents for payment.',
      ),
    ),
    ...inputTexts(PROFILE_TEXTS, PROFILE_MULTILINE, PROFILE_MEANINGS),
    legal_footer_lines: Type.Optional(
      Type.Array(DisplayText(0, 500), {
        maxItems: MAX_LEGAL_FOOTER_LINES,
        description: `Legal lines printed under every page (register court and number, managing directors), at most ${MAX_LEGAL_FOOTER_LINES}.`,
      }),
    ),
    locale: Type.Optional(
      Described(
        Type.String({ maxLength: 20 }),
        'BCP 47 language tag of its documents: de… prints German, anything else English; de-DE when left out on create.',
        ['de-DE', 'en-GB'],
      ),
    ),
    currency: Type.Optional(
      Described(Currency(), 'Default currency of its documents; EUR when left out on create.'),
    ),
    layout_config: Type.Optional(FreeObject('Layout settings of the caller, stored with the profile')),
    data: Type.Optional(FreeObject('Free data of the caller, stored with the profile and not printed')),
    number_patterns: Type.Optional(NumberPatterns()),
  }),
  output_schema: Output({
    profile: Described(
      Output({
        id: Described(
          Uuid(),
          'Id of the profile; pass it as document_profile_id to billing.document.create_draft.',
        ),
        organization_id: Described(Uuid(), 'The organization the profile belongs to.'),
        profile_key: Described(
          Type.String({ maxLength: 120 }),
          'Stable key of the profile, unique in the organization.',
        ),
        display_name: Described(Type.String(), 'Name the profile is known by in the organization.'),
        is_default: Described(Type.Boolean(), 'True for the profile drafts use when they name none.'),
        is_active: Described(Type.Boolean(), 'False for a retired profile.'),
        default_bank_account_id: Described(
          Nullable(Uuid()),
          'The bank account printed for payment; null when none.',
        ),
        locale: Described(Type.String({ maxLength: 20 }), 'BCP 47 language tag of its documents.', ['de-DE']),
        currency: Described(Currency(), 'Default currency of its documents.'),
        legal_footer_lines: Type.Array(Type.String(), {
          maxItems: MAX_LEGAL_FOOTER_LINES,
          description: 'Legal lines printed under every page.',
        }),
        layout_config: FreeObject('Layout settings of the caller, stored with the profile'),
        data: FreeObject('Free data of the caller, stored with the profile'),
        number_patterns: Type.Optional(NumberPatterns()),
        ...optionalTexts(PROFILE_TEXTS, PROFILE_MEANINGS),
        created_at: Type.Optional(Described(Timestamp(), 'When the profile was created.')),
        updated_at: Type.Optional(Described(Timestamp(), 'When the profile was last saved.')),
      }),
      'The profile as saved.',
    ),
  }),
});

/** Billing settings capabilities (bank accounts, document profiles). */
export const billingSettingsCapabilities = [billingBankAccountSave, billingProfileSave] as const;
