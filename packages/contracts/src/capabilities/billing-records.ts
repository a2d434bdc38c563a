import { Type } from '@sinclair/typebox';
import { Currency, DateString, FreeObject, Nullable, Timestamp, Uuid } from '../schemas/primitives.js';
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
export const DocumentType = () => OneOf(DOCUMENT_TYPES);

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
export const DocumentStatus = () => OneOf(DOCUMENT_STATUSES);

/** payment_status of a document: the payment-related part of the status set (our reading of the spec). */
export const DOCUMENT_PAYMENT_STATUSES = [
  'unpaid',
  'partial',
  'paid',
  'overdue',
  'refunded',
  'not_applicable',
] as const;
export const DocumentPaymentStatus = () => OneOf(DOCUMENT_PAYMENT_STATUSES);

export const PAYMENT_STATUSES = ['draft', 'pending', 'completed', 'failed', 'cancelled', 'imported'] as const;
export const PaymentStatus = () => OneOf(PAYMENT_STATUSES);

export const REMINDER_STATUSES = [
  'draft',
  'scheduled',
  'sent',
  'cancelled',
  'paid_after_reminder',
  'imported',
] as const;
export const ReminderStatus = () => OneOf(REMINDER_STATUSES);

export const REMINDER_LEVELS = [
  'payment_reminder',
  'first_reminder',
  'second_reminder',
  'final_notice',
] as const;
export const ReminderLevel = () => OneOf(REMINDER_LEVELS);

export const ITEM_TYPES = ['service', 'product', 'fee', 'discount', 'other'] as const;
export const ItemType = () => OneOf(ITEM_TYPES);

/** A billing document as read, listed and searched. */
export const DocumentRecord = () =>
  Output({
    id: Uuid(),
    document_type: DocumentType(),
    status: DocumentStatus(),
    payment_status: Nullable(DocumentPaymentStatus()),
    number: NullableString(),
    title: NullableString(),
    counterparty_name: NullableString(),
    document_date: DateString(),
    currency: Currency(),
    total: Type.Number(),
    balance: Type.Number(),
    source_document_id: Nullable(Uuid()),
    source_document_type: Nullable(DocumentType()),
    created_at: Timestamp(),
    account_id: Type.Optional(Nullable(Uuid())),
    vendor_id: Type.Optional(Nullable(Uuid())),
    counterparty_email: Type.Optional(NullableString()),
    valid_until: Type.Optional(Nullable(DateString())),
    due_date: Type.Optional(Nullable(DateString())),
    subtotal: Type.Optional(Type.Number()),
    discount_total: Type.Optional(Type.Number()),
    tax_total: Type.Optional(Type.Number()),
    reverse_charge_tax_total: Type.Optional(Type.Number()),
    /** When billing.document.send last mailed it; null when never sent. */
    sent_at: Type.Optional(Nullable(Timestamp())),
  });

/** A line of a billing document. */
export const LineRecord = () =>
  Output({
    id: Uuid(),
    document_id: Uuid(),
    item_id: Nullable(Uuid()),
    position: Type.Integer({ minimum: 0 }),
    item_name: Type.String(),
    quantity: Type.Number(),
    unit_price: Type.Number(),
    tax_amount: Type.Number(),
    line_total: Type.Number(),
    sku: Type.Optional(NullableString()),
    description: Type.Optional(NullableString()),
    unit: Type.Optional(NullableString()),
    discount_amount: Type.Optional(Nullable(Type.Number())),
    tax_name: Type.Optional(NullableString()),
    tax_percent: Type.Optional(Nullable(Type.Number())),
  });

/** A payment recorded against a document. */
export const PaymentRecord = () =>
  Output({
    id: Uuid(),
    document_id: Uuid(),
    status: PaymentStatus(),
    amount: Type.Number(),
    currency: Currency(),
    payment_date: DateString(),
    payment_method: NullableString(),
    reference: NullableString(),
    notes: NullableString(),
    account_id: Type.Optional(Nullable(Uuid())),
    created_at: Type.Optional(Timestamp()),
  });

/** A payment reminder as listed and created. */
export const ReminderRecord = () =>
  Output({
    id: Uuid(),
    invoice_id: Uuid(),
    account_id: Nullable(Uuid()),
    reminder_level: ReminderLevel(),
    status: ReminderStatus(),
    reminder_date: DateString(),
    currency: Currency(),
    sent_channel: NullableString(),
    sent_at: Nullable(Timestamp()),
    subject: NullableString(),
    created_at: Timestamp(),
    due_date_at_reminder: Type.Optional(Nullable(DateString())),
    invoice_balance_at_reminder: Type.Optional(Nullable(Type.Number())),
    fee_amount: Type.Optional(Nullable(Type.Number())),
    interest_amount: Type.Optional(Nullable(Type.Number())),
    body_snapshot: Type.Optional(NullableString()),
    external_source_1: Type.Optional(NullableString()),
    invoice: Type.Optional(Nullable(FreeObject())),
    account: Type.Optional(Nullable(FreeObject())),
  });
