import { Type } from '@sinclair/typebox';
import { DisplayText, NullableDisplayText, NullableMultilineText } from '../schemas/display-text.js';
import { Closed, Currency, FreeObject, Nullable, Timestamp, Uuid } from '../schemas/primitives.js';
import { Input, NullableText1000, Output } from './common.js';
import { defineCapability } from './types.js';

const BANK_ACCOUNT_TEXTS = [
  'bank_name',
  'bic',
  'payment_reference_template',
  'creditor_identifier',
  'notes',
] as const;

/** The bank account texts that may span lines; the others are one line on a document. */
const BANK_ACCOUNT_MULTILINE: readonly string[] = ['notes'];

const optionalNullableText = () => Type.Optional(NullableText1000());

/** `{ name: Optional(nullable, max 1000) }` for each name (outputs: what was stored). */
function optionalTexts<const K extends string>(names: readonly K[]) {
  return Object.fromEntries(names.map((name) => [name, optionalNullableText()])) as {
    [P in K]: ReturnType<typeof optionalNullableText>;
  };
}

/**
 * The same fields as inputs: every text reaches a document (the PDF, an e-invoice, a mail), so a
 * one-line text refuses control characters (`display-text`) and a `multiline` one all but tab and line
 * breaks (`multiline-text`), before the e-invoice's XSD would refuse them at output time.
 */
function inputTexts<const K extends string>(names: readonly K[], multiline: readonly string[]) {
  return Object.fromEntries(
    names.map((name) => [
      name,
      Type.Optional(multiline.includes(name) ? NullableMultilineText(1000) : NullableDisplayText(1000)),
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
    display_name: DisplayText(1, 200),
    account_holder: DisplayText(1, 200),
    iban: DisplayText(6, 40),
    id: Type.Optional(Uuid()),
    ...inputTexts(BANK_ACCOUNT_TEXTS, BANK_ACCOUNT_MULTILINE),
    currency: Type.Optional(Currency()),
    is_default: Type.Optional(Type.Boolean()),
    is_active: Type.Optional(Type.Boolean()),
    data: Type.Optional(FreeObject()),
  }),
  output_schema: Output({
    bank_account: Output({
      id: Uuid(),
      organization_id: Uuid(),
      display_name: Type.String(),
      account_holder: Type.String(),
      iban: Type.String(),
      currency: Currency(),
      is_default: Type.Boolean(),
      is_active: Type.Boolean(),
      data: FreeObject(),
      ...optionalTexts(BANK_ACCOUNT_TEXTS),
      created_at: Type.Optional(Timestamp()),
      updated_at: Type.Optional(Timestamp()),
    }),
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
const NumberPattern = () => Type.Optional(Type.String({ maxLength: 60, pattern: NUMBER_PATTERN }));
const NumberPatterns = () =>
  Type.Object(
    {
      quote: NumberPattern(),
      sales_order: NumberPattern(),
      invoice: NumberPattern(),
      credit_note: NumberPattern(),
      self_billing_invoice: NumberPattern(),
    },
    Closed,
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
    display_name: DisplayText(1, 200),
    id: Type.Optional(Uuid()),
    profile_key: Type.Optional(Type.String({ maxLength: 120 })),
    is_default: Type.Optional(Type.Boolean()),
    is_active: Type.Optional(Type.Boolean()),
    default_bank_account_id: Type.Optional(Nullable(Uuid())),
    ...inputTexts(PROFILE_TEXTS, PROFILE_MULTILINE),
    legal_footer_lines: Type.Optional(Type.Array(DisplayText(0, 500), { maxItems: MAX_LEGAL_FOOTER_LINES })),
    locale: Type.Optional(Type.String({ maxLength: 20 })),
    currency: Type.Optional(Currency()),
    layout_config: Type.Optional(FreeObject()),
    data: Type.Optional(FreeObject()),
    number_patterns: Type.Optional(NumberPatterns()),
  }),
  output_schema: Output({
    profile: Output({
      id: Uuid(),
      organization_id: Uuid(),
      profile_key: Type.String({ maxLength: 120 }),
      display_name: Type.String(),
      is_default: Type.Boolean(),
      is_active: Type.Boolean(),
      default_bank_account_id: Nullable(Uuid()),
      locale: Type.String({ maxLength: 20 }),
      currency: Currency(),
      legal_footer_lines: Type.Array(Type.String(), { maxItems: MAX_LEGAL_FOOTER_LINES }),
      layout_config: FreeObject(),
      data: FreeObject(),
      number_patterns: Type.Optional(NumberPatterns()),
      ...optionalTexts(PROFILE_TEXTS),
      created_at: Type.Optional(Timestamp()),
      updated_at: Type.Optional(Timestamp()),
    }),
  }),
});

/** Billing settings capabilities (bank accounts, document profiles). */
export const billingSettingsCapabilities = [billingBankAccountSave, billingProfileSave] as const;
