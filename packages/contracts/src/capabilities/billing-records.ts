import { Type } from '@sinclair/typebox';
import { UnitOfMeasure } from '../schemas/code-lists.js';
import {
  Currency,
  DateString,
  Described,
  FreeObject,
  Nullable,
  Timestamp,
  Uuid,
} from '../schemas/primitives.js';
import { NullableString, OneOf, Output } from './common.js';

/** Shared billing enums and records (inlined into each capability schema, never referenced by `$ref`). */

/** Document types of create_draft and the filters. */
export const DOCUMENT_TYPES = [
  'quote',
  'sales_order',
  'invoice',
  'credit_note',
  'self_billing_invoice',
] as const;
export const DocumentType = () =>
  Described(
    OneOf(DOCUMENT_TYPES),
    'Kind of document: quote (an offer), sales_order (a confirmed order), invoice, credit_note (corrects or refunds an invoice), self_billing_invoice (issued by the buyer on behalf of the seller, EN 16931 type 389).',
  );

/** The spec's billing document status set (the filter list, `paid` once). */
export const DOCUMENT_STATUSES = [
  'draft',
  'open',
  'sent',
  'accepted',
  'declined',
  'confirmed',
  'partially_paid',
  'paid',
  'void',
  'cancelled',
  'written_off',
  'closed',
  'imported',
  'unpaid',
  'partial',
  'overdue',
  'refunded',
  'not_applicable',
] as const;
export const DocumentStatus = () =>
  Described(
    OneOf(DOCUMENT_STATUSES),
    "Lifecycle status: draft (editable, no number yet), open (issued by billing.document.finalize), sent (mailed by billing.document.send), partially_paid, paid, void (billing.document.void). The other values are the spec's for documents of other systems; as a filter, unpaid, partial, refunded and not_applicable select by payment_status and overdue selects open documents past their due date.",
  );

/** payment_status of a document: the payment-related part of the status set (our reading of the spec). */
export const DOCUMENT_PAYMENT_STATUSES = [
  'unpaid',
  'partial',
  'paid',
  'overdue',
  'refunded',
  'not_applicable',
] as const;
export const DocumentPaymentStatus = () =>
  Described(
    OneOf(DOCUMENT_PAYMENT_STATUSES),
    'Payment state: unpaid, partial (some paid, a balance remains), paid (balance 0), overdue, refunded, or not_applicable (quotes, sales orders and credit notes, which are not paid).',
  );

export const PAYMENT_STATUSES = ['draft', 'pending', 'completed', 'failed', 'cancelled', 'imported'] as const;
export const PaymentStatus = () =>
  Described(
    OneOf(PAYMENT_STATUSES),
    'State of a payment: completed (recorded by billing.payment.record and counted in the balance); draft, pending, failed, cancelled and imported come from other systems.',
  );

export const REMINDER_STATUSES = [
  'draft',
  'scheduled',
  'sent',
  'cancelled',
  'paid_after_reminder',
  'imported',
] as const;
export const ReminderStatus = () =>
  Described(
    OneOf(REMINDER_STATUSES),
    'State of a reminder: draft (created, not sent), scheduled, sent, cancelled, paid_after_reminder (the invoice was paid after it), imported (from another system).',
  );

export const REMINDER_LEVELS = [
  'payment_reminder',
  'first_reminder',
  'second_reminder',
  'final_notice',
] as const;
export const ReminderLevel = () =>
  Described(
    OneOf(REMINDER_LEVELS),
    'Dunning step, mildest first: payment_reminder (friendly reminder), first_reminder, second_reminder, final_notice (last notice before collection).',
  );

export const ITEM_TYPES = ['service', 'product', 'fee', 'discount', 'other'] as const;
export const ItemType = () =>
  Described(
    OneOf(ITEM_TYPES),
    'Kind of catalog item: service (work, time), product (goods), fee (a charge such as shipping), discount, other.',
  );

/** A billing document as read, listed and searched. */
export const DocumentRecord = () =>
  Output({
    id: Described(
      Uuid(),
      'Id of the document; pass it as document_id to the other billing.document.* capabilities.',
    ),
    document_type: DocumentType(),
    status: DocumentStatus(),
    payment_status: Described(
      Nullable(DocumentPaymentStatus()),
      'Payment state of the document; null when it has none recorded.',
    ),
    number: Described(
      NullableString(),
      "Document number assigned by billing.document.finalize from the profile's number pattern; null while a draft.",
      ['INV-2025-00042'],
    ),
    title: Described(NullableString(), 'Title printed above the lines; null when none was given.'),
    counterparty_name: Described(
      NullableString(),
      'Name of the customer (or, for a self-billing invoice, the vendor) as frozen on the document; null without an account.',
    ),
    document_date: Described(DateString(), 'Issue date printed on the document (EN 16931 BT-2).'),
    currency: Described(Currency(), 'Currency every amount of the document is in.'),
    total: Described(
      Type.Number(),
      'Gross total in the document currency: net after discounts plus VAT (EN 16931 BT-112).',
    ),
    balance: Described(
      Type.Number(),
      'Amount still to be paid in the document currency: total minus recorded payments; 0 when paid.',
    ),
    source_document_id: Described(
      Nullable(Uuid()),
      'The quote or sales order this document was converted from; null when created directly.',
    ),
    source_document_type: Described(
      Nullable(DocumentType()),
      'Type of the source document; null when created directly.',
    ),
    created_at: Described(Timestamp(), 'When the document was created.'),
    account_id: Type.Optional(
      Described(Nullable(Uuid()), 'The customer account (billing.account.save) billed; null when none.'),
    ),
    vendor_id: Type.Optional(
      Described(Nullable(Uuid()), 'The vendor account (self-billing invoices); null when none.'),
    ),
    counterparty_email: Type.Optional(
      Described(
        NullableString(),
        'Email address of the counterparty frozen on the document; billing.document.send mails it there by default. Null when unknown.',
      ),
    ),
    valid_until: Type.Optional(
      Described(Nullable(DateString()), 'Last day a quote may be accepted; null when not set.'),
    ),
    due_date: Type.Optional(
      Described(
        Nullable(DateString()),
        'Payment due date (EN 16931 BT-9); null when none (then the document date counts for overdue).',
      ),
    ),
    subtotal: Type.Optional(
      Described(Type.Number(), 'Sum of the line net amounts, before document discounts (BT-106).'),
    ),
    discount_total: Type.Optional(Described(Type.Number(), 'Sum of the document-level discounts (BT-107).')),
    tax_total: Type.Optional(
      Described(Type.Number(), 'VAT the seller charges, in the document currency (BT-110).'),
    ),
    reverse_charge_tax_total: Type.Optional(
      Described(
        Type.Number(),
        'VAT the buyer owes under reverse charge, shown for information only; not part of total.',
      ),
    ),
    sent_at: Type.Optional(
      Described(Nullable(Timestamp()), 'When billing.document.send last mailed it; null when never sent.'),
    ),
  });

/** A line of a billing document. */
export const LineRecord = () =>
  Output({
    id: Described(Uuid(), 'Id of the line.'),
    document_id: Described(Uuid(), 'The document the line belongs to.'),
    item_id: Described(
      Nullable(Uuid()),
      'The catalog item (billing.item.save) the line came from; null when free text.',
    ),
    position: Described(Type.Integer({ minimum: 0 }), 'Order of the line on the document, from 0.'),
    item_name: Described(Type.String(), 'Name of what is sold, printed on the line.'),
    quantity: Described(Type.Number(), 'How many units, in `unit`.'),
    unit_price: Described(Type.Number(), 'Net price of one unit in the document currency, before VAT.'),
    tax_amount: Described(Type.Number(), 'VAT of this line in the document currency.'),
    line_total: Described(
      Type.Number(),
      'Net amount of the line: quantity × unit_price − discount_amount, rounded to the currency (BT-131).',
    ),
    sku: Type.Optional(Described(NullableString(), "Seller's article number (BT-155); null when none.")),
    description: Type.Optional(
      Described(NullableString(), 'Longer text under the line name; null when none.'),
    ),
    unit: Type.Optional(UnitOfMeasure(NullableString())),
    discount_amount: Type.Optional(
      Described(
        Nullable(Type.Number()),
        'Discount on this line in the document currency; null or 0 when none.',
      ),
    ),
    tax_name: Type.Optional(
      Described(NullableString(), 'Label of the VAT rate printed on the line; null when none.'),
    ),
    tax_percent: Type.Optional(
      Described(Nullable(Type.Number()), 'VAT rate of the line in percent (19 means 19 %).'),
    ),
  });

/** A catalog item as saved and searched. */
export const ItemRecord = () =>
  Output({
    id: Described(Uuid(), 'Id of the item; pass it as item_id on a create_draft line.'),
    name: Described(Type.String(), 'Name printed on document lines.'),
    sku: Described(NullableString(), "Seller's article number; null when none."),
    item_type: ItemType(),
    description: Described(NullableString(), 'Longer text about the item; null when none.'),
    unit: UnitOfMeasure(NullableString()),
    unit_price: Described(Type.Number(), 'Net price of one unit in `currency`, before VAT.'),
    currency: Described(Currency(), 'Currency of unit_price.'),
    tax_name: Described(NullableString(), 'Label of the VAT rate printed on lines; null when none.'),
    tax_percent: Described(Nullable(Type.Number()), 'VAT rate in percent (19 means 19 %); null: 0.'),
    is_active: Described(Type.Boolean(), 'False for an item kept for history but no longer offered.'),
    updated_at: Described(Timestamp(), 'When the item was last saved.'),
  });

/** A payment recorded against a document. */
export const PaymentRecord = () =>
  Output({
    id: Described(Uuid(), 'Id of the payment.'),
    document_id: Described(Uuid(), 'The document the payment was recorded against.'),
    status: PaymentStatus(),
    amount: Described(Type.Number(), 'Amount paid, in `currency`.'),
    currency: Described(Currency(), "Currency of the payment: the document's."),
    payment_date: Described(DateString(), 'Day the money was received.'),
    payment_method: Described(
      NullableString(),
      'How it was paid, as the caller wrote it (free text, e.g. "bank_transfer", "cash"); null when not given.',
    ),
    reference: Described(NullableString(), 'Bank or remittance reference of the payment; null when none.'),
    notes: Described(NullableString(), 'Internal note on the payment; null when none.'),
    account_id: Type.Optional(Described(Nullable(Uuid()), "The document's account; null when none.")),
    created_at: Type.Optional(Described(Timestamp(), 'When the payment was recorded.')),
  });

/** A payment reminder as listed and created. */
export const ReminderRecord = () =>
  Output({
    id: Described(Uuid(), 'Id of the reminder.'),
    invoice_id: Described(Uuid(), 'The overdue invoice the reminder is about.'),
    account_id: Described(
      Nullable(Uuid()),
      "The invoice's customer account; null when the invoice has none.",
    ),
    reminder_level: ReminderLevel(),
    status: ReminderStatus(),
    reminder_date: Described(DateString(), 'Date printed on the reminder.'),
    currency: Described(Currency(), 'Currency of the invoice and of fee and interest.'),
    sent_channel: Described(
      NullableString(),
      'How the reminder was sent (e.g. "email"); null while not sent.',
    ),
    sent_at: Described(Nullable(Timestamp()), 'When the reminder was sent; null while not sent.'),
    subject: Described(NullableString(), 'Subject line of the reminder; null when none.'),
    created_at: Described(Timestamp(), 'When the reminder was created.'),
    due_date_at_reminder: Type.Optional(
      Described(Nullable(DateString()), "The invoice's due date when the reminder was created."),
    ),
    invoice_balance_at_reminder: Type.Optional(
      Described(
        Nullable(Type.Number()),
        'Open balance of the invoice when the reminder was created, in `currency`.',
      ),
    ),
    fee_amount: Type.Optional(
      Described(
        Nullable(Type.Number()),
        'Dunning fee charged with the reminder, in `currency`; null or 0 when none.',
      ),
    ),
    interest_amount: Type.Optional(
      Described(
        Nullable(Type.Number()),
        'Late-payment interest claimed, in `currency`; null or 0 when none.',
      ),
    ),
    body_snapshot: Type.Optional(
      Described(NullableString(), 'The reminder text as created; null when none.'),
    ),
    external_source_1: Type.Optional(
      Described(
        NullableString(),
        'Reference in the system a reminder was imported from; left out for reminders made here.',
      ),
    ),
    invoice: Type.Optional(
      Described(
        Nullable(FreeObject()),
        'Summary of the reminded invoice as it is now: number, status, total, balance, counterparty_name.',
      ),
    ),
    account: Type.Optional(
      Described(
        Nullable(FreeObject()),
        'Summary of the customer account, when a system that imported the reminder gave one; the gateway leaves it out.',
      ),
    ),
  });
