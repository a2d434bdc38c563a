import type { StoredBillingDocument } from '../records.js';

const TITLES: Record<'de' | 'en', Record<string, string>> = {
  de: {
    quote: 'Angebot',
    sales_order: 'Auftragsbestätigung',
    invoice: 'Rechnung',
    credit_note: 'Gutschrift',
    self_billing_invoice: 'Gutschrift (Selbstfakturierung)',
  },
  en: {
    quote: 'Quote',
    sales_order: 'Order confirmation',
    invoice: 'Invoice',
    credit_note: 'Credit note',
    self_billing_invoice: 'Self-billed invoice',
  },
};

/** Header text never carries a line break (a subject is one header line). */
const oneLine = (text: string) => text.replace(/[\r\n]+/g, ' ').trim();

/**
 * Subject and body of the mail that sends a document, in the issuer's language (German for a `de`
 * locale, English otherwise): title, number, issuer, the amount and due date of an invoice.
 */
export function deliveryMail(stored: StoredBillingDocument, message: string | null | undefined) {
  const { document } = stored;
  const german = (document.issuer.locale ?? '').toLowerCase().startsWith('de');
  const title = TITLES[german ? 'de' : 'en'][document.document_type] ?? document.document_type;
  const issuer = document.issuer.issuer_name ?? '';
  const subject = oneLine(`${title} ${document.number ?? ''}${issuer ? ` – ${issuer}` : ''}`);
  const due =
    document.document_type === 'invoice' && document.due_date
      ? german
        ? `Betrag: ${document.balance} ${document.currency}, fällig am ${document.due_date}.`
        : `Amount due: ${document.balance} ${document.currency} by ${document.due_date}.`
      : '';
  const lines = [
    german ? 'Guten Tag,' : 'Hello,',
    '',
    ...(message ? [message, ''] : []),
    german
      ? `anbei erhalten Sie ${title} ${document.number ?? ''}.`
      : `please find attached ${title.toLowerCase()} ${document.number ?? ''}.`,
    ...(due ? [due] : []),
    '',
    german ? 'Mit freundlichen Grüßen' : 'Kind regards',
    issuer,
  ];
  return { subject, text: `${lines.join('\n')}\n` };
}
