import { Type } from '@sinclair/typebox';
import { NullableDisplayText } from '../schemas/display-text.js';
import { Described, Email, Sha256Hex, Timestamp, Uuid } from '../schemas/primitives.js';
import { DocumentRecord } from './billing-records.js';
import { Input, OneOf, Output } from './common.js';
import { defineCapability } from './types.js';

/**
 * Sending a document (issue 15): what the spec leaves out and an agent needs to deliver an invoice.
 * An account says which e-invoice its recipient wants (`e_invoice_format` on billing.account.save).
 */

/** What rides along with the PDF: an XRechnung XML, a Factur-X PDF instead of the plain one, or nothing. */
export const E_INVOICE_FORMATS = ['pdf', 'xrechnung', 'facturx'] as const;

/** What each value of E_INVOICE_FORMATS sends. */
export const E_INVOICE_FORMAT_DESCRIPTION =
  'What the mail carries: pdf = the PDF alone; xrechnung = the PDF plus the XRechnung 3.0 XML (UBL), as German public buyers require; facturx = a Factur-X / ZUGFeRD PDF (EN 16931 profile) with the XML embedded, in place of the plain PDF.';

/** One file of a sent mail, as it left the gateway (a document's or a reminder's). */
export const SentAttachment = () =>
  Output({
    filename: Described(Type.String(), 'File name of the attachment.', ['INV-2025-00042.pdf']),
    mime_type: Described(Type.String(), 'Media type of the attachment.', [
      'application/pdf',
      'application/xml',
    ]),
    size_bytes: Described(Type.Integer({ minimum: 1 }), 'Size of the attachment in bytes.'),
    sha256: Described(
      Sha256Hex(),
      "SHA-256 of the attachment's bytes: compare it with the archived rendering (a reminder's: billing.reminder.pdf's archive.sha256).",
    ),
  });

/** A delivery of a document by mail. */
export const DeliveryRecord = () =>
  Output({
    id: Described(Uuid(), 'Id of the delivery.'),
    document_id: Described(Uuid(), 'The document sent.'),
    channel: Described(Type.Literal('email'), 'How it was delivered: by email.'),
    to: Described(Type.String(), 'Recipient email address.'),
    subject: Described(Type.String(), 'Subject line of the mail.'),
    e_invoice_format: Described(OneOf(E_INVOICE_FORMATS), E_INVOICE_FORMAT_DESCRIPTION),
    attachments: Type.Array(SentAttachment(), {
      maxItems: 2,
      description: 'The PDF (or the Factur-X PDF in its place), and the XRechnung XML when asked for.',
    }),
    sent_at: Described(Timestamp(), 'When the mail was handed to the mail server.'),
  });

/** billing.document.send. */
export const billingDocumentSend = defineCapability({
  id: 'billing.document.send',
  version: '1.0.0',
  summary:
    'Mail an issued document to its customer with the PDF and the XRechnung or Factur-X the account prefers; marks it sent.',
  tags: ['billing', 'document', 'send', 'email', 'xrechnung', 'facturx', 'e-invoice'],
  risk_level: 'medium',
  scopes: ['billing:write'],
  cost_credits: '0.10',
  mutating: true,
  dry_run: 'supported',
  input_schema: Input({
    document_id: Described(Uuid(), 'The issued document to mail (finalize it first; a draft is refused).'),
    to: Type.Optional(
      Described(Email(), "Recipient; the counterparty's email frozen on the document when left out.", [
        'accounts@buyer.example',
      ]),
    ),
    e_invoice_format: Type.Optional(
      Described(
        OneOf(E_INVOICE_FORMATS),
        `${E_INVOICE_FORMAT_DESCRIPTION} The account's e_invoice_format, else pdf, when left out.`,
      ),
    ),
    message: Type.Optional(
      Described(NullableDisplayText(2000), 'A short note placed above the generated mail text; one line.'),
    ),
  }),
  output_schema: Output({
    document: Described(
      DocumentRecord(),
      'The document after sending: an open one becomes sent; sent_at is set.',
    ),
    delivery: Described(DeliveryRecord(), 'The mail as it left: recipient, subject and attachments.'),
  }),
});

export const billingDeliveryCapabilities = [billingDocumentSend] as const;
