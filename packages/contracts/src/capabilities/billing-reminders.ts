import { Type } from '@sinclair/typebox';
import { DateString, Described, Email, Nullable, Sha256Hex, Timestamp, Uuid } from '../schemas/primitives.js';
import { SentAttachment } from './billing-delivery.js';
import { ReminderRecord } from './billing-records.js';
import { Base64, Input, Output, Text } from './common.js';
import { defineCapability } from './types.js';

/**
 * A reminder as a letter (issue 28, build 8): its PDF in the issuer's language, and the mail that sends
 * it. What the spec leaves out and an agent needs to dun a customer without a person writing the letter.
 */

/** Most times one reminder is mailed (the first send plus re-sends to a lost or corrected address). */
export const MAX_REMINDER_SENDS = 10;

const ReminderInput = (text: string) => Input({ reminder_id: Described(Uuid(), text) });

/** Where an answered reminder PDF comes from: the copy stored on its first rendering. */
const ReminderArchive = () =>
  Output({
    sha256: Described(
      Sha256Hex(),
      "SHA-256 of the PDF's bytes; every later read and every send answers these bytes.",
    ),
    size_bytes: Described(Type.Integer({ minimum: 1 }), 'Size of the stored PDF in bytes.'),
    stored_at: Described(Timestamp(), 'When the PDF was first rendered and stored.'),
  });

/** billing.reminder.pdf. */
export const billingReminderPdf = defineCapability({
  id: 'billing.reminder.pdf',
  version: '1.0.0',
  summary:
    "Render a payment reminder as PDF (base64) in the issuer's language: the level, the invoice it reminds of with its open amount, fee and interest, the new total, the pay-by date and the bank details. Charged once per reminder: the first rendering is stored and later reads cost nothing.",
  tags: ['billing', 'reminder', 'dunning', 'pdf', 'export'],
  risk_level: 'low',
  scopes: ['billing:read'],
  cost_credits: '0.05',
  mutating: false,
  dry_run: 'supported',
  input_schema: ReminderInput('The reminder to render (billing.reminder.create answers its id).'),
  output_schema: Output({
    filename: Described(
      Text(1, 255),
      'Suggested file name: the level and the invoice number (Mahnung for a German issuer).',
      ['Zahlungserinnerung-RE-2026-00042.pdf', 'Payment-reminder-INV-2026-00042.pdf'],
    ),
    mime_type: Described(Type.Literal('application/pdf'), 'Media type of the file.'),
    size_bytes: Described(Type.Integer({ minimum: 1 }), 'Size of the decoded file in bytes.'),
    pdf_base64: Described(
      Base64(),
      'The PDF itself, base64 (RFC 4648) encoded; decode it to write the file.',
    ),
    language: Described(
      Type.Union([Type.Literal('de'), Type.Literal('en')]),
      'Language of the letter: de for an issuer whose locale (frozen on the invoice) starts with de, en otherwise.',
    ),
    pay_by: Described(
      DateString(),
      'The pay-by date printed on the reminder (YYYY-MM-DD): the reminder date plus 7 days.',
    ),
    archive: Described(ReminderArchive(), 'The stored copy these bytes come from.'),
  }),
});

/** The mail that sent a reminder. */
const ReminderDelivery = () =>
  Output({
    channel: Described(Type.Literal('email'), 'How it was delivered: by email.'),
    to: Described(Type.String(), 'Recipient email address.'),
    subject: Described(Type.String(), "Subject line of the mail: the reminder's subject."),
    attachment: Described(SentAttachment(), 'The reminder PDF the mail carries (application/pdf).'),
    send_count: Described(
      Type.Integer({ minimum: 1, maximum: MAX_REMINDER_SENDS }),
      `How many times this reminder has been mailed, this send included (at most ${MAX_REMINDER_SENDS}).`,
    ),
    sent_at: Described(Timestamp(), 'When the mail was handed to the mail server.'),
  });

/** billing.reminder.send. */
export const billingReminderSend = defineCapability({
  id: 'billing.reminder.send',
  version: '1.0.0',
  summary:
    "Mail a payment reminder to the invoice's customer (or `to`) with its PDF, subject and text in the issuer's language; marks the reminder sent. Sending again (another idempotency key) mails it again.",
  tags: ['billing', 'reminder', 'dunning', 'send', 'email'],
  risk_level: 'medium',
  scopes: ['billing:write'],
  cost_credits: '0.10',
  mutating: true,
  dry_run: 'supported',
  input_schema: Input({
    reminder_id: Described(
      Uuid(),
      'The reminder to mail; refused once its invoice is paid, void or the reminder cancelled.',
    ),
    to: Type.Optional(
      Described(Email(), "Recipient; the customer's email frozen on the reminded invoice when left out.", [
        'accounts@buyer.example',
      ]),
    ),
  }),
  output_schema: Output({
    reminder: Described(
      ReminderRecord(),
      'The reminder after sending: status sent, sent_channel email, sent_at this send.',
    ),
    delivery: Described(ReminderDelivery(), 'The mail as it left: recipient, subject and the PDF.'),
    previously_sent_at: Described(
      Nullable(Timestamp()),
      'When the reminder had been mailed before this send; null on its first send.',
    ),
  }),
});

export const billingReminderCapabilities = [billingReminderPdf, billingReminderSend] as const;
