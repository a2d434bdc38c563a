import { Type } from '@sinclair/typebox';
import { NullableDisplayText } from '../schemas/display-text.js';
import { Email, Timestamp, Uuid } from '../schemas/primitives.js';
import { DocumentRecord } from './billing-records.js';
import { Input, OneOf, Output } from './common.js';
import { defineCapability } from './types.js';

/**
 * Sending a document (issue 15): what the spec leaves out and an agent needs to deliver an invoice.
 * An account says which e-invoice its recipient wants (`e_invoice_format` on billing.account.save).
 */

/** What rides along with the PDF: an XRechnung XML, a Factur-X PDF instead of the plain one, or nothing. */
export const E_INVOICE_FORMATS = ['pdf', 'xrechnung', 'facturx'] as const;

/** One file of a sent mail, as it left the gateway. */
const SentAttachment = () =>
  Output({
    filename: Type.String(),
    mime_type: Type.String(),
    size_bytes: Type.Integer({ minimum: 1 }),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  });

/** A delivery of a document by mail. */
export const DeliveryRecord = () =>
  Output({
    id: Uuid(),
    document_id: Uuid(),
    channel: Type.Literal('email'),
    to: Type.String(),
    subject: Type.String(),
    e_invoice_format: OneOf(E_INVOICE_FORMATS),
    // The PDF (or the Factur-X PDF in its place), and the XRechnung XML when asked for.
    attachments: Type.Array(SentAttachment(), { maxItems: 2 }),
    sent_at: Timestamp(),
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
    document_id: Uuid(),
    /** Default: the counterparty's email frozen on the document. */
    to: Type.Optional(Email()),
    /** Default: the account's `e_invoice_format`, else `pdf`. */
    e_invoice_format: Type.Optional(OneOf(E_INVOICE_FORMATS)),
    /** A short note above the generated text. */
    message: Type.Optional(NullableDisplayText(2000)),
  }),
  output_schema: Output({ document: DocumentRecord(), delivery: DeliveryRecord() }),
});

export const billingDeliveryCapabilities = [billingDocumentSend] as const;
