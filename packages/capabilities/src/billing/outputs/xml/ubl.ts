import type { BillingLineRow } from '../../records.js';
import {
  allowanceTotal,
  amount,
  appliedPercent,
  BILLING_PROCESS_ID,
  buyerEndpoint,
  buyerReference,
  decimal,
  deliveryDate,
  discountCategory,
  type EInvoiceSource,
  exemption,
  lineNetTotal,
  notSubjectToVat,
  payable,
  paymentTermsText,
  unitCode,
  vatInAccountingCurrency,
  XRECHNUNG_CUSTOMIZATION_ID,
} from './facts.js';
import { group, serialize, text, type XmlNode } from './writer.js';

const NAMESPACES = {
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
};

const vatScheme = () => group('cac:TaxScheme', [text('cbc:ID', 'VAT')]);

function money(name: string, value: string, currency: string): XmlNode {
  return [name, { currencyID: currency }, amount(value, currency)];
}

interface Address {
  readonly line1?: string | null;
  readonly line2?: string | null;
  readonly city?: string | null;
  readonly postalCode?: string | null;
  readonly state?: string | null;
  readonly country?: string | null;
}

function postalAddress(address: Address): XmlNode | null {
  return group('cac:PostalAddress', [
    text('cbc:StreetName', address.line1),
    text('cbc:AdditionalStreetName', address.line2),
    text('cbc:CityName', address.city),
    text('cbc:PostalZone', address.postalCode),
    text('cbc:CountrySubentity', address.state),
    group('cac:Country', [text('cbc:IdentificationCode', address.country)]),
  ]);
}

function partyTaxScheme(vatId: string | null | undefined): XmlNode | null {
  return vatId ? group('cac:PartyTaxScheme', [text('cbc:CompanyID', vatId), vatScheme()]) : null;
}

function seller(source: EInvoiceSource): XmlNode | null {
  const issuer = source.document.issuer;
  const outsideVat = notSubjectToVat(source);
  return group('cac:AccountingSupplierParty', [
    group('cac:Party', [
      text('cbc:EndpointID', issuer.issuer_email, { schemeID: 'EM' }),
      outsideVat ? group('cac:PartyIdentification', [text('cbc:ID', issuer.issuer_vat_id)]) : null,
      group('cac:PartyName', [text('cbc:Name', issuer.issuer_name)]),
      postalAddress({
        line1: issuer.issuer_address_line1,
        line2: issuer.issuer_address_line2,
        city: issuer.issuer_city,
        postalCode: issuer.issuer_postal_code,
        state: issuer.issuer_state,
        country: issuer.issuer_country,
      }),
      partyTaxScheme(outsideVat ? null : issuer.issuer_vat_id),
      group('cac:PartyLegalEntity', [
        text('cbc:RegistrationName', issuer.issuer_legal_name ?? issuer.issuer_name),
      ]),
      group('cac:Contact', [
        text('cbc:Name', issuer.issuer_name),
        text('cbc:Telephone', issuer.issuer_phone),
        text('cbc:ElectronicMail', issuer.issuer_email),
      ]),
    ]),
  ]);
}

function buyer(source: EInvoiceSource): XmlNode | null {
  const { document } = source;
  const party = document.counterparty;
  const endpoint = buyerEndpoint(source);
  return group('cac:AccountingCustomerParty', [
    group('cac:Party', [
      endpoint ? text('cbc:EndpointID', endpoint.id, { schemeID: endpoint.scheme }) : null,
      group('cac:PartyName', [text('cbc:Name', party.name ?? document.counterparty_name)]),
      postalAddress({
        line1: party.address_line1,
        line2: party.address_line2,
        city: party.city,
        postalCode: party.postal_code,
        state: party.state,
        country: party.country_code ?? document.customer_country_code,
      }),
      partyTaxScheme(notSubjectToVat(source) ? null : (document.customer_tax_id ?? party.vat_id)),
      group('cac:PartyLegalEntity', [
        text('cbc:RegistrationName', party.legal_name ?? party.name ?? document.counterparty_name),
      ]),
      group('cac:Contact', [text('cbc:ElectronicMail', party.email ?? document.counterparty_email)]),
    ]),
  ]);
}

function delivery(source: EInvoiceSource): XmlNode | null {
  const date = deliveryDate(source);
  if (date === null) return null;
  const { document } = source;
  const party = document.counterparty;
  // The deliver-to address (BG-15) only where the rules ask for it (an intra-community supply names
  // the country it went to, BR-IC-12); XRechnung then wants it whole (BR-DE-10, BR-DE-11).
  const intraCommunity = document.tax_breakdown.some((row) => row.category === 'K');
  return group('cac:Delivery', [
    text('cbc:ActualDeliveryDate', date),
    intraCommunity
      ? group('cac:DeliveryLocation', [
          group('cac:Address', [
            text('cbc:StreetName', party.address_line1),
            text('cbc:AdditionalStreetName', party.address_line2),
            text('cbc:CityName', party.city),
            text('cbc:PostalZone', party.postal_code),
            text('cbc:CountrySubentity', party.state),
            group('cac:Country', [
              text('cbc:IdentificationCode', party.country_code ?? document.customer_country_code),
            ]),
          ]),
        ])
      : null,
  ]);
}

function paymentMeans(source: EInvoiceSource): XmlNode | null {
  const { document } = source;
  const bank = document.bank_account;
  if (bank === null) return null;
  return group('cac:PaymentMeans', [
    text('cbc:PaymentMeansCode', '58'),
    text('cbc:PaymentID', document.number),
    group('cac:PayeeFinancialAccount', [
      text('cbc:ID', bank.iban),
      text('cbc:Name', bank.account_holder),
      group('cac:FinancialInstitutionBranch', [text('cbc:ID', bank.bic)]),
    ]),
  ]);
}

function documentAllowances(source: EInvoiceSource): XmlNode[] {
  const { document, lines } = source;
  return document.document_discounts.map((discount) => {
    const category = discountCategory(lines, discount.tax_percent);
    return group('cac:AllowanceCharge', [
      text('cbc:ChargeIndicator', 'false'),
      text('cbc:AllowanceChargeReasonCode', '95'),
      text('cbc:AllowanceChargeReason', discount.reason ?? 'Discount'),
      money('cbc:Amount', discount.amount, document.currency),
      group('cac:TaxCategory', [
        text('cbc:ID', category),
        text('cbc:Percent', appliedPercent(category, discount.tax_percent)),
        vatScheme(),
      ]),
    ]) as XmlNode;
  });
}

function taxTotal(source: EInvoiceSource): XmlNode | null {
  const { document } = source;
  return group('cac:TaxTotal', [
    money('cbc:TaxAmount', document.tax_total, document.currency),
    ...document.tax_breakdown.map((row) => {
      const { reason, code } = exemption(row);
      return group('cac:TaxSubtotal', [
        money('cbc:TaxableAmount', row.taxable_amount, document.currency),
        money('cbc:TaxAmount', row.tax_amount, document.currency),
        group('cac:TaxCategory', [
          text('cbc:ID', row.category),
          text('cbc:Percent', decimal(row.percent)),
          text('cbc:TaxExemptionReasonCode', code),
          text('cbc:TaxExemptionReason', reason),
          vatScheme(),
        ]),
      ]);
    }),
  ]);
}

/** BT-111: a second TaxTotal with only the VAT total in the VAT accounting currency (BR-53). */
function accountingTaxTotal(source: EInvoiceSource): XmlNode | null {
  const accounting = vatInAccountingCurrency(source);
  if (accounting === null) return null;
  return group('cac:TaxTotal', [money('cbc:TaxAmount', accounting.taxTotal, accounting.currency)]);
}

function monetaryTotal(source: EInvoiceSource): XmlNode | null {
  const { document } = source;
  const allowances = allowanceTotal(source);
  const { prepaid, payable: due } = payable(source);
  return group('cac:LegalMonetaryTotal', [
    money('cbc:LineExtensionAmount', lineNetTotal(source), document.currency),
    money('cbc:TaxExclusiveAmount', document.net_total, document.currency),
    money('cbc:TaxInclusiveAmount', document.total, document.currency),
    document.document_discounts.length > 0
      ? money('cbc:AllowanceTotalAmount', allowances, document.currency)
      : null,
    Number(prepaid) !== 0 ? money('cbc:PrepaidAmount', prepaid, document.currency) : null,
    money('cbc:PayableAmount', due, document.currency),
  ]);
}

function line(source: EInvoiceSource, row: BillingLineRow, creditNote: boolean): XmlNode {
  const { currency } = source.document;
  const discount = Number(row.discount_amount) !== 0;
  return group(creditNote ? 'cac:CreditNoteLine' : 'cac:InvoiceLine', [
    text('cbc:ID', row.position + 1),
    [
      creditNote ? 'cbc:CreditedQuantity' : 'cbc:InvoicedQuantity',
      { unitCode: unitCode(row.unit) },
      decimal(row.quantity),
    ],
    money('cbc:LineExtensionAmount', row.line_total, currency),
    discount
      ? group('cac:AllowanceCharge', [
          text('cbc:ChargeIndicator', 'false'),
          text('cbc:AllowanceChargeReasonCode', '95'),
          text('cbc:AllowanceChargeReason', 'Discount'),
          money('cbc:Amount', row.discount_amount, currency),
        ])
      : null,
    group('cac:Item', [
      text('cbc:Description', row.description),
      text('cbc:Name', row.item_name),
      group('cac:SellersItemIdentification', [text('cbc:ID', row.sku)]),
      group('cac:ClassifiedTaxCategory', [
        text('cbc:ID', row.tax_category),
        text('cbc:Percent', appliedPercent(row.tax_category, row.tax_percent)),
        vatScheme(),
      ]),
    ]),
    group('cac:Price', [[`cbc:PriceAmount`, { currencyID: currency }, decimal(row.unit_price)]]),
  ]) as XmlNode;
}

/**
 * XRechnung 3.0 in UBL 2.1 of an issued invoice (`Invoice`, type 380) or credit note (`CreditNote`,
 * type 381, BT-25 naming the corrected invoice), written element by element in the order the UBL
 * schema requires, from the frozen document only.
 */
export function xrechnungUbl(source: EInvoiceSource): string {
  const { document, lines } = source;
  const creditNote = document.document_type === 'credit_note';
  const root = creditNote ? 'CreditNote' : 'Invoice';
  const terms = paymentTermsText(source);
  const notes = [document.notes].filter((note): note is string => Boolean(note));
  const head: (XmlNode | null)[] = [
    text('cbc:CustomizationID', XRECHNUNG_CUSTOMIZATION_ID),
    text('cbc:ProfileID', BILLING_PROCESS_ID),
    text('cbc:ID', document.number),
    text('cbc:IssueDate', document.document_date),
    creditNote ? null : text('cbc:DueDate', document.due_date),
    text(creditNote ? 'cbc:CreditNoteTypeCode' : 'cbc:InvoiceTypeCode', creditNote ? '381' : '380'),
    ...notes.map((note) => text('cbc:Note', note)),
    text('cbc:DocumentCurrencyCode', document.currency),
    text('cbc:TaxCurrencyCode', vatInAccountingCurrency(source)?.currency),
    text('cbc:BuyerReference', buyerReference(source)),
    group('cac:OrderReference', [text('cbc:ID', document.order_reference)]),
    source.preceding
      ? group('cac:BillingReference', [
          group('cac:InvoiceDocumentReference', [
            text('cbc:ID', source.preceding.number),
            text('cbc:IssueDate', source.preceding.document_date),
          ]),
        ])
      : null,
    seller(source),
    buyer(source),
    delivery(source),
    paymentMeans(source),
    group('cac:PaymentTerms', [text('cbc:Note', terms)]),
  ];
  // Invoice puts document allowances before the exchange rates and tax total, CreditNote after them:
  // both orders land right before TaxTotal here, as neither document uses exchange rates.
  const body: (XmlNode | null)[] = [
    ...documentAllowances(source),
    taxTotal(source),
    accountingTaxTotal(source),
    monetaryTotal(source),
    ...lines.map((row) => line(source, row, creditNote)),
  ];
  const attributes = {
    xmlns: `urn:oasis:names:specification:ubl:schema:xsd:${root}-2`,
    'xmlns:cac': NAMESPACES.cac,
    'xmlns:cbc': NAMESPACES.cbc,
  };
  return serialize([root, attributes, [...head, ...body]]);
}
