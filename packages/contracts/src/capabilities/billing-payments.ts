import { Type } from '@sinclair/typebox';
import { DisplayText, NullableDisplayText, NullableMultilineText } from '../schemas/display-text.js';
import { MoneyAmount } from '../schemas/numbers.js';
import { Closed, DateString, Described, Nullable, Timestamp, Uuid } from '../schemas/primitives.js';
import {
  DocumentPaymentStatus,
  DocumentStatus,
  ItemRecord,
  ItemType,
  PaymentRecord,
  PaymentStatus,
  ReminderLevel,
  ReminderRecord,
  ReminderStatus,
} from './billing-records.js';
import { Input, Output, Page, PagingQuery } from './common.js';
import { defineCapability } from './types.js';

/** billing.item.search. */
export const billingItemSearch = defineCapability({
  id: 'billing.item.search',
  version: '1.0.0',
  summary: 'Search catalog items (services, products, fees, discounts) for document lines.',
  tags: ['billing', 'item', 'search'],
  risk_level: 'low',
  scopes: ['billing:read'],
  cost_credits: '0',
  mutating: false,
  dry_run: 'supported',
  input_schema: Input({
    query: Type.Optional(
      Described(Type.String({ maxLength: 200 }), 'Text matched against name, SKU and description.', [
        'consulting',
      ]),
    ),
    item_type: Type.Optional(Described(ItemType(), 'Only items of this type.')),
    active_only: Type.Optional(Described(Type.Boolean(), 'Leave out inactive items.')),
    ...PagingQuery(),
  }),
  output_schema: Page(ItemRecord()),
});

/** billing.payment.list. */
export const billingPaymentList = defineCapability({
  id: 'billing.payment.list',
  version: '1.0.0',
  summary: 'List payments, optionally of one document or with one status.',
  tags: ['billing', 'payment', 'list'],
  risk_level: 'low',
  scopes: ['billing:read'],
  cost_credits: '0',
  mutating: false,
  dry_run: 'supported',
  input_schema: Input({
    document_id: Type.Optional(Described(Uuid(), 'Only payments of this document.')),
    status: Type.Optional(Described(PaymentStatus(), 'Only payments in this status.')),
    ...PagingQuery(),
  }),
  output_schema: Page(PaymentRecord()),
});

/** billing.payment.record. */
export const billingPaymentRecord = defineCapability({
  id: 'billing.payment.record',
  version: '1.0.0',
  summary: "Record a payment against a document; updates the document's status, payment status and balance.",
  tags: ['billing', 'payment', 'record'],
  risk_level: 'high',
  scopes: ['billing:write'],
  cost_credits: '0',
  mutating: true,
  dry_run: 'required',
  input_schema: Input({
    document_id: Described(Uuid(), 'The issued invoice (or self-billing invoice) the money was paid for.'),
    amount: Described(
      MoneyAmount({ positive: true }),
      "Amount received in the document's currency; at most the open balance.",
      [378.27],
    ),
    payment_date: Type.Optional(
      Described(DateString(), 'Day the money was received; today (UTC) when left out.'),
    ),
    payment_method: Type.Optional(
      Described(DisplayText(0, 100), 'How it was paid, free text (not a code).', ['bank_transfer', 'cash']),
    ),
    reference: Type.Optional(
      Described(NullableDisplayText(1000), 'Bank or remittance reference of the payment.', [
        'INV-2025-00042',
      ]),
    ),
    notes: Type.Optional(Described(NullableMultilineText(1000), 'Internal note on the payment.')),
  }),
  output_schema: Output({
    payment: Described(PaymentRecord(), 'The payment recorded.'),
    document: Type.Object(
      {
        id: Described(Uuid(), 'The document paid.'),
        status: Described(DocumentStatus(), 'Its status after the payment (partially_paid or paid).'),
        payment_status: Described(Nullable(DocumentPaymentStatus()), 'Its payment status after the payment.'),
        balance: Described(Type.Number(), 'Amount still open after the payment, in the document currency.'),
        paid_at: Described(Nullable(Timestamp()), 'When it became fully paid; null while a balance remains.'),
      },
      { ...Closed, description: 'The document as the payment left it.' },
    ),
    paid_total: Described(Type.Number(), 'All payments on the document so far, this one included.'),
    next_balance: Described(
      Type.Number(),
      'Amount still open after this payment (same as document.balance).',
    ),
  }),
});

/** billing.reminder.list. */
export const billingReminderList = defineCapability({
  id: 'billing.reminder.list',
  version: '1.0.0',
  summary: 'List payment reminders, optionally of one invoice or account, by status or level.',
  tags: ['billing', 'reminder', 'dunning', 'list'],
  risk_level: 'low',
  scopes: ['billing:read'],
  cost_credits: '0',
  mutating: false,
  dry_run: 'supported',
  input_schema: Input({
    invoice_id: Type.Optional(Described(Uuid(), 'Only reminders of this invoice.')),
    account_id: Type.Optional(Described(Uuid(), 'Only reminders to this customer account.')),
    status: Type.Optional(Described(ReminderStatus(), 'Only reminders in this status.')),
    reminder_level: Type.Optional(Described(ReminderLevel(), 'Only reminders at this level.')),
    ...PagingQuery(),
  }),
  output_schema: Page(ReminderRecord()),
});

/** Billing item, payment and reminder capabilities. */
export const billingPaymentCapabilities = [
  billingItemSearch,
  billingPaymentList,
  billingPaymentRecord,
  billingReminderList,
] as const;
