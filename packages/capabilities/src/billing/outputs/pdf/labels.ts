import { minorUnits } from '../../money.js';

/** The words a document shows, in German and English. */
const LABELS = {
  de: {
    quote: 'Angebot',
    sales_order: 'Auftragsbestätigung',
    invoice: 'Rechnung',
    credit_note: 'Gutschrift',
    self_billing_invoice: 'Gutschrift (Selbstfakturierung)',
    draft: 'ENTWURF',
    number: 'Nummer',
    date: 'Datum',
    dueDate: 'Fällig am',
    validUntil: 'Gültig bis',
    serviceDate: 'Leistungsdatum',
    buyerReference: 'Ihre Referenz',
    orderReference: 'Bestellnummer',
    corrects: 'Zu Rechnung',
    vatId: 'USt-IdNr.',
    position: 'Pos.',
    description: 'Bezeichnung',
    quantity: 'Menge',
    unitPrice: 'Einzelpreis',
    discount: 'Rabatt',
    vat: 'USt.',
    net: 'Netto',
    subtotal: 'Zwischensumme',
    documentDiscount: 'Nachlass',
    netTotal: 'Nettobetrag',
    vatOf: (rate: string, base: string) => `USt. ${rate} auf ${base}`,
    notSubjectToVat: 'nicht steuerbar',
    vatInAccounting: (currency: string, rate: string) => `USt. gesamt in ${currency} (Kurs ${rate})`,
    total: 'Gesamtbetrag',
    paid: 'Bereits bezahlt',
    balance: 'Offener Betrag',
    reverseCharge: 'Steuerschuldnerschaft des Leistungsempfängers (Reverse Charge).',
    payment: 'Zahlung',
    payTo: (due: string | null) =>
      due ? `Bitte überweisen Sie den Betrag bis ${due} auf:` : 'Bitte überweisen Sie den Betrag auf:',
    bank: 'Bank',
    iban: 'IBAN',
    bic: 'BIC',
    holder: 'Kontoinhaber',
    reference: 'Verwendungszweck',
    page: (page: number, pages: number) => `Seite ${page} von ${pages}`,
  },
  en: {
    quote: 'Quote',
    sales_order: 'Order confirmation',
    invoice: 'Invoice',
    credit_note: 'Credit note',
    self_billing_invoice: 'Self-billed invoice',
    draft: 'DRAFT',
    number: 'Number',
    date: 'Date',
    dueDate: 'Due date',
    validUntil: 'Valid until',
    serviceDate: 'Service date',
    buyerReference: 'Your reference',
    orderReference: 'Order number',
    corrects: 'Corrects invoice',
    vatId: 'VAT ID',
    position: 'Pos.',
    description: 'Description',
    quantity: 'Qty',
    unitPrice: 'Unit price',
    discount: 'Discount',
    vat: 'VAT',
    net: 'Net',
    subtotal: 'Subtotal',
    documentDiscount: 'Discount',
    netTotal: 'Net amount',
    vatOf: (rate: string, base: string) => `VAT ${rate} on ${base}`,
    notSubjectToVat: 'not subject to VAT',
    vatInAccounting: (currency: string, rate: string) => `Total VAT in ${currency} (rate ${rate})`,
    total: 'Total',
    paid: 'Paid',
    balance: 'Amount due',
    reverseCharge: 'Reverse charge: VAT to be accounted for by the recipient.',
    payment: 'Payment',
    payTo: (due: string | null) =>
      due ? `Please transfer the amount by ${due} to:` : 'Please transfer the amount to:',
    bank: 'Bank',
    iban: 'IBAN',
    bic: 'BIC',
    holder: 'Account holder',
    reference: 'Reference',
    page: (page: number, pages: number) => `Page ${page} of ${pages}`,
  },
};

export type Labels = (typeof LABELS)['en'];

/** Words and number formats of a locale: German for `de…`, English (en-US formats) otherwise. */
export function localeOf(locale: string | null | undefined) {
  const german = (locale ?? '').toLowerCase().startsWith('de');
  const tag = german ? 'de-DE' : 'en-US';
  const labels: Labels = german ? LABELS.de : LABELS.en;
  return {
    tag,
    language: german ? ('de' as const) : ('en' as const),
    labels,
    /** `1.234,56 €` / `€1,234.56` in the document's currency, with its minor units. */
    money(value: string, currency: string): string {
      const digits = minorUnits(currency);
      return new Intl.NumberFormat(tag, {
        style: 'currency',
        currency,
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      }).format(Number(value));
    },
    /** A quantity or rate as entered, up to 6 decimals, in the locale's notation. */
    number(value: string): string {
      return new Intl.NumberFormat(tag, { maximumFractionDigits: 6 }).format(Number(value));
    },
    percent(value: string): string {
      return `${new Intl.NumberFormat(tag, { maximumFractionDigits: 3 }).format(Number(value))} %`;
    },
    /** `20.11.2026` / `11/20/2026` of a `YYYY-MM-DD` date (no time zone involved). */
    date(value: string | null | undefined): string | null {
      if (!value) return null;
      const [year, month, day] = value.split('-');
      return german ? `${day}.${month}.${year}` : `${month}/${day}/${year}`;
    },
  };
}

export type Locale = ReturnType<typeof localeOf>;
