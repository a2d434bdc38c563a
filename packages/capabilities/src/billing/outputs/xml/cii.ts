import type { BillingLineRow } from '../../records.js';
import {
  allowanceTotal,
  amount,
  appliedPercent,
  buyerEndpoint,
  buyerReference,
  decimal,
  deliveryDate,
  discountCategory,
  type EInvoiceSource,
  EN16931_GUIDELINE_ID,
  exemption,
  lineNetTotal,
  notSubjectToVat,
  payable,
  paymentTermsText,
  unitCode,
  vatInAccountingCurrency,
} from './facts.js';
import { group, serialize, text, type XmlNode } from './writer.js';

const NAMESPACES = {
  'xmlns:rsm': 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  'xmlns:ram': 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
  'xmlns:qdt': 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100',
  'xmlns:udt': 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
};

/** A date as CII writes it: `udt:DateTimeString` (or `qdt:`) in format 102 (YYYYMMDD). */
function date(name: string, value: string | null | undefined, prefix = 'udt'): XmlNode | null {
  if (!value) return null;
  return group(name, [text(`${prefix}:DateTimeString`, value.replaceAll('-', ''), { format: '102' })]);
}

const indicator = (value: boolean) => group('ram:ChargeIndicator', [text('udt:Indicator', String(value))]);

interface Party {
  readonly name: string | null | undefined;
  readonly contact?: { name?: string | null; phone?: string | null; email?: string | null };
  readonly address: {
    postalCode?: string | null;
    line1?: string | null;
    line2?: string | null;
    city?: string | null;
    country?: string | null;
    state?: string | null;
  };
  readonly endpoint: { id: string; scheme: string } | null;
  /** BT-29 (seller identifier), where stated. */
  readonly id?: string | null | undefined;
  readonly vatId: string | null | undefined;
}

function tradeParty(name: string, party: Party): XmlNode | null {
  const contact = party.contact;
  return group(name, [
    text('ram:ID', party.id),
    text('ram:Name', party.name),
    contact
      ? group('ram:DefinedTradeContact', [
          text('ram:PersonName', contact.name),
          group('ram:TelephoneUniversalCommunication', [text('ram:CompleteNumber', contact.phone)]),
          group('ram:EmailURIUniversalCommunication', [text('ram:URIID', contact.email)]),
        ])
      : null,
    group('ram:PostalTradeAddress', [
      text('ram:PostcodeCode', party.address.postalCode),
      text('ram:LineOne', party.address.line1),
      text('ram:LineTwo', party.address.line2),
      text('ram:CityName', party.address.city),
      text('ram:CountryID', party.address.country),
      text('ram:CountrySubDivisionName', party.address.state),
    ]),
    party.endpoint
      ? group('ram:URIUniversalCommunication', [
          text('ram:URIID', party.endpoint.id, { schemeID: party.endpoint.scheme }),
        ])
      : null,
    party.vatId
      ? group('ram:SpecifiedTaxRegistration', [text('ram:ID', party.vatId, { schemeID: 'VA' })])
      : null,
  ]);
}

function agreement(source: EInvoiceSource): XmlNode | null {
  const { document } = source;
  const issuer = document.issuer;
  const party = document.counterparty;
  return group('ram:ApplicableHeaderTradeAgreement', [
    text('ram:BuyerReference', buyerReference(source)),
    tradeParty('ram:SellerTradeParty', {
      name: issuer.issuer_legal_name ?? issuer.issuer_name,
      contact: { name: issuer.issuer_name, phone: issuer.issuer_phone, email: issuer.issuer_email },
      address: {
        postalCode: issuer.issuer_postal_code,
        line1: issuer.issuer_address_line1,
        line2: issuer.issuer_address_line2,
        city: issuer.issuer_city,
        country: issuer.issuer_country,
        state: issuer.issuer_state,
      },
      endpoint: issuer.issuer_email ? { id: issuer.issuer_email, scheme: 'EM' } : null,
      // Not subject to VAT: no VAT ids (BR-O-02); the seller's identifies it as BT-29 instead.
      id: notSubjectToVat(source) ? issuer.issuer_vat_id : null,
      vatId: notSubjectToVat(source) ? null : issuer.issuer_vat_id,
    }),
    tradeParty('ram:BuyerTradeParty', {
      name: party.legal_name ?? party.name ?? document.counterparty_name,
      address: {
        postalCode: party.postal_code,
        line1: party.address_line1,
        line2: party.address_line2,
        city: party.city,
        country: party.country_code ?? document.customer_country_code,
        state: party.state,
      },
      endpoint: buyerEndpoint(source),
      vatId: notSubjectToVat(source) ? null : (document.customer_tax_id ?? party.vat_id),
    }),
    group('ram:BuyerOrderReferencedDocument', [text('ram:IssuerAssignedID', document.order_reference)]),
  ]);
}

function delivery(source: EInvoiceSource): XmlNode {
  const when = deliveryDate(source);
  const { document } = source;
  const party = document.counterparty;
  const intraCommunity = document.tax_breakdown.some((row) => row.category === 'K');
  return [
    'ram:ApplicableHeaderTradeDelivery',
    {},
    [
      intraCommunity
        ? group('ram:ShipToTradeParty', [
            text('ram:Name', party.legal_name ?? party.name ?? document.counterparty_name),
            group('ram:PostalTradeAddress', [
              text('ram:PostcodeCode', party.postal_code),
              text('ram:LineOne', party.address_line1),
              text('ram:LineTwo', party.address_line2),
              text('ram:CityName', party.city),
              text('ram:CountryID', party.country_code ?? document.customer_country_code),
            ]),
          ])
        : null,
      when ? group('ram:ActualDeliverySupplyChainEvent', [date('ram:OccurrenceDateTime', when)]) : null,
    ],
  ];
}

function settlement(source: EInvoiceSource): XmlNode | null {
  const { document, lines } = source;
  const currency = document.currency;
  const bank = document.bank_account;
  const { prepaid, payable: due } = payable(source);
  const accounting = vatInAccountingCurrency(source);
  return group('ram:ApplicableHeaderTradeSettlement', [
    text('ram:PaymentReference', document.number),
    text('ram:TaxCurrencyCode', accounting?.currency),
    text('ram:InvoiceCurrencyCode', currency),
    bank
      ? group('ram:SpecifiedTradeSettlementPaymentMeans', [
          text('ram:TypeCode', '58'),
          group('ram:PayeePartyCreditorFinancialAccount', [
            text('ram:IBANID', bank.iban),
            text('ram:AccountName', bank.account_holder),
          ]),
          group('ram:PayeeSpecifiedCreditorFinancialInstitution', [text('ram:BICID', bank.bic)]),
        ])
      : null,
    ...document.tax_breakdown.map((row) => {
      const { reason, code } = exemption(row);
      return group('ram:ApplicableTradeTax', [
        text('ram:CalculatedAmount', amount(row.tax_amount, currency)),
        text('ram:TypeCode', 'VAT'),
        text('ram:ExemptionReason', reason),
        text('ram:BasisAmount', amount(row.taxable_amount, currency)),
        text('ram:CategoryCode', row.category),
        text('ram:ExemptionReasonCode', code),
        text('ram:RateApplicablePercent', decimal(row.percent)),
      ]);
    }),
    ...document.document_discounts.map((discount) => {
      const category = discountCategory(lines, discount.tax_percent);
      return group('ram:SpecifiedTradeAllowanceCharge', [
        indicator(false),
        text('ram:ActualAmount', amount(discount.amount, currency)),
        text('ram:ReasonCode', '95'),
        text('ram:Reason', discount.reason ?? 'Discount'),
        group('ram:CategoryTradeTax', [
          text('ram:TypeCode', 'VAT'),
          text('ram:CategoryCode', category),
          text('ram:RateApplicablePercent', appliedPercent(category, discount.tax_percent)),
        ]),
      ]);
    }),
    group('ram:SpecifiedTradePaymentTerms', [
      text('ram:Description', paymentTermsText(source)),
      document.document_type === 'credit_note' ? null : date('ram:DueDateDateTime', document.due_date),
    ]),
    group('ram:SpecifiedTradeSettlementHeaderMonetarySummation', [
      text('ram:LineTotalAmount', lineNetTotal(source)),
      document.document_discounts.length > 0
        ? text('ram:AllowanceTotalAmount', allowanceTotal(source))
        : null,
      text('ram:TaxBasisTotalAmount', amount(document.net_total, currency)),
      text('ram:TaxTotalAmount', amount(document.tax_total, currency), { currencyID: currency }),
      accounting
        ? text('ram:TaxTotalAmount', accounting.taxTotal, { currencyID: accounting.currency })
        : null,
      text('ram:GrandTotalAmount', amount(document.total, currency)),
      Number(prepaid) !== 0 ? text('ram:TotalPrepaidAmount', prepaid) : null,
      text('ram:DuePayableAmount', due),
    ]),
    source.preceding
      ? group('ram:InvoiceReferencedDocument', [
          text('ram:IssuerAssignedID', source.preceding.number),
          date('ram:FormattedIssueDateTime', source.preceding.document_date, 'qdt'),
        ])
      : null,
  ]);
}

function line(source: EInvoiceSource, row: BillingLineRow): XmlNode | null {
  const { currency } = source.document;
  const discount = Number(row.discount_amount) !== 0;
  return group('ram:IncludedSupplyChainTradeLineItem', [
    group('ram:AssociatedDocumentLineDocument', [text('ram:LineID', row.position + 1)]),
    group('ram:SpecifiedTradeProduct', [
      text('ram:SellerAssignedID', row.sku),
      text('ram:Name', row.item_name),
      text('ram:Description', row.description),
    ]),
    group('ram:SpecifiedLineTradeAgreement', [
      group('ram:NetPriceProductTradePrice', [text('ram:ChargeAmount', decimal(row.unit_price))]),
    ]),
    group('ram:SpecifiedLineTradeDelivery', [
      text('ram:BilledQuantity', decimal(row.quantity), { unitCode: unitCode(row.unit) }),
    ]),
    group('ram:SpecifiedLineTradeSettlement', [
      group('ram:ApplicableTradeTax', [
        text('ram:TypeCode', 'VAT'),
        text('ram:CategoryCode', row.tax_category),
        text('ram:RateApplicablePercent', appliedPercent(row.tax_category, row.tax_percent)),
      ]),
      discount
        ? group('ram:SpecifiedTradeAllowanceCharge', [
            indicator(false),
            text('ram:ActualAmount', amount(row.discount_amount, currency)),
            text('ram:ReasonCode', '95'),
            text('ram:Reason', 'Discount'),
          ])
        : null,
      group('ram:SpecifiedTradeSettlementLineMonetarySummation', [
        text('ram:LineTotalAmount', amount(row.line_total, currency)),
      ]),
    ]),
  ]);
}

/**
 * CII D16B of an issued invoice (type 380) or credit note (381, BT-25 naming the corrected invoice)
 * for Factur-X profile EN 16931 (guideline `urn:cen.eu:en16931:2017`), in the schema's element order.
 */
export function ciiFacturX(source: EInvoiceSource): string {
  const { document, lines } = source;
  const creditNote = document.document_type === 'credit_note';
  return serialize([
    'rsm:CrossIndustryInvoice',
    NAMESPACES,
    [
      group('rsm:ExchangedDocumentContext', [
        group('ram:GuidelineSpecifiedDocumentContextParameter', [text('ram:ID', EN16931_GUIDELINE_ID)]),
      ]),
      group('rsm:ExchangedDocument', [
        text('ram:ID', document.number),
        text('ram:TypeCode', creditNote ? '381' : '380'),
        date('ram:IssueDateTime', document.document_date),
        document.notes ? group('ram:IncludedNote', [text('ram:Content', document.notes)]) : null,
      ]),
      group('rsm:SupplyChainTradeTransaction', [
        ...lines.map((row) => line(source, row)),
        agreement(source),
        delivery(source),
        settlement(source),
      ]),
    ],
  ]);
}
