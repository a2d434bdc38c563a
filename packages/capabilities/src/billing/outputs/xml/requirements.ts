import { buyerEndpoint, buyerReference, type EInvoiceSource } from './facts.js';

type Format = 'xrechnung' | 'facturx';

interface Requirement {
  /** Which formats need it. */
  readonly formats: readonly Format[];
  readonly met: (source: EInvoiceSource) => boolean;
  readonly message: string;
}

const present = (value: string | null | undefined) => typeof value === 'string' && value.trim() !== '';
const categories = (source: EInvoiceSource) =>
  source.document.tax_breakdown.map((row) => row.category as string);
const buyerVat = (source: EInvoiceSource) =>
  present(source.document.customer_tax_id) || present(source.document.counterparty.vat_id);

/**
 * The business terms an e-invoice cannot be valid without, checked before one is made, each with
 * where to set it: an agent fixes the profile or account (or, for data frozen at finalize, issues a
 * credit note and a new invoice) instead of reading Schematron rule ids.
 */
const REQUIREMENTS: readonly Requirement[] = [
  {
    formats: ['xrechnung'],
    met: (source) => present(buyerReference(source)),
    message:
      "BT-10 buyer reference is required for XRechnung: set the account's buyer_reference (the Leitweg-ID) or the document's.",
  },
  {
    formats: ['xrechnung', 'facturx'],
    met: (source) => present(source.document.issuer.issuer_name),
    message: "BT-27 seller name is required: set the profile's issuer_name.",
  },
  {
    formats: ['xrechnung', 'facturx'],
    met: (source) => present(source.document.issuer.issuer_country),
    message: "BT-40 seller country is required: set the profile's issuer_country.",
  },
  {
    formats: ['xrechnung'],
    met: (source) =>
      present(source.document.issuer.issuer_city) && present(source.document.issuer.issuer_postal_code),
    message:
      "BT-37 seller city and BT-38 post code are required for XRechnung: set the profile's issuer_city and issuer_postal_code.",
  },
  {
    formats: ['xrechnung'],
    met: (source) => present(source.document.issuer.issuer_email),
    message:
      "BT-34 seller electronic address and BT-43 seller contact email are required for XRechnung: set the profile's issuer_email.",
  },
  {
    formats: ['xrechnung'],
    met: (source) => present(source.document.issuer.issuer_phone),
    message: "BT-42 seller contact telephone is required for XRechnung: set the profile's issuer_phone.",
  },
  {
    formats: ['xrechnung', 'facturx'],
    met: (source) => present(source.document.issuer.issuer_vat_id),
    message: "BT-31 seller VAT identifier is required: set the profile's issuer_vat_id.",
  },
  {
    formats: ['xrechnung', 'facturx'],
    met: (source) => present(source.document.counterparty.name ?? source.document.counterparty_name),
    message: 'BT-44 buyer name is required: create the document from an account with a name.',
  },
  {
    formats: ['xrechnung', 'facturx'],
    met: (source) =>
      present(source.document.counterparty.country_code ?? source.document.customer_country_code),
    message: "BT-55 buyer country is required: set the account's country_code.",
  },
  {
    formats: ['xrechnung'],
    met: (source) =>
      present(source.document.counterparty.city) && present(source.document.counterparty.postal_code),
    message:
      "BT-52 buyer city and BT-53 post code are required for XRechnung: set the account's city and postal_code.",
  },
  {
    formats: ['xrechnung'],
    met: (source) => buyerEndpoint(source) !== null,
    message:
      "BT-49 buyer electronic address is required for XRechnung: set the account's e_invoice_endpoint_id or email.",
  },
  {
    formats: ['xrechnung'],
    met: (source) => source.document.bank_account !== null,
    message:
      "BG-16 payment instructions (BT-84 IBAN) are required for XRechnung: the document was finalized without a bank account; set the profile's default_bank_account_id and correct it with a credit note and a new invoice.",
  },
  {
    formats: ['xrechnung', 'facturx'],
    met: (source) =>
      !categories(source).some((category) => category === 'AE' || category === 'K') || buyerVat(source),
    message:
      "BT-48 buyer VAT identifier is required for reverse charge and intra-community supplies: set the account's vat_id.",
  },
  {
    formats: ['xrechnung', 'facturx'],
    met: (source) => source.document.document_type !== 'credit_note' || present(source.preceding?.number),
    message:
      'BT-25 preceding invoice reference is required: the credit note must name the invoice it corrects.',
  },
];

/** What `source` lacks to make a valid `format` e-invoice, as messages naming the business terms. */
export function missingBusinessTerms(source: EInvoiceSource, format: Format): string[] {
  return REQUIREMENTS.filter(
    (requirement) => requirement.formats.includes(format) && !requirement.met(source),
  ).map((requirement) => requirement.message);
}
