import { Type } from '@sinclair/typebox';
import { DisplayText, NullableDisplayText, NullableMultilineText } from '../schemas/display-text.js';
import { MoneyAmount } from '../schemas/numbers.js';
import { Closed, Currency, DateString, Nullable, Timestamp, Uuid } from '../schemas/primitives.js';
import {
  DocumentPaymentStatus,
  DocumentStatus,
  ItemType,
  PaymentRecord,
  PaymentStatus,
  ReminderLevel,
  ReminderRecord,
  ReminderStatus,
} from './billing-records.js';
import { Input, NullableString, Output, Page, PagingQuery } from './common.js';
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
    query: Type.Optional(Type.String({ maxLength: 200 })),
    item_type: Type.Optional(ItemType()),
    active_only: Type.Optional(Type.Boolean()),
    ...PagingQuery(),
  }),
  output_schema: Page(
    Output({
      id: Uuid(),
      name: Type.String(),
      sku: NullableString(),
      item_type: ItemType(),
      description: NullableString(),
      unit: NullableString(),
      unit_price: Type.Number(),
      currency: Currency(),
      tax_name: NullableString(),
      tax_percent: Nullable(Type.Number()),
      is_active: Type.Boolean(),
      updated_at: Timestamp(),
    }),
  ),
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
    document_id: Type.Optional(Uuid()),
    status: Type.Optional(PaymentStatus()),
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
    document_id: Uuid(),
    amount: MoneyAmount({ positive: true }),
    payment_date: Type.Optional(DateString()),
    payment_method: Type.Optional(DisplayText(0, 100)),
    reference: Type.Optional(NullableDisplayText(1000)),
    notes: Type.Optional(NullableMultilineText(1000)),
  }),
  output_schema: Output({
    payment: PaymentRecord(),
    document: Type.Object(
      {
        id: Uuid(),
        status: DocumentStatus(),
        payment_status: Nullable(DocumentPaymentStatus()),
        balance: Type.Number(),
        paid_at: Nullable(Timestamp()),
      },
      Closed,
    ),
    paid_total: Type.Number(),
    next_balance: Type.Number(),
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
    invoice_id: Type.Optional(Uuid()),
    account_id: Type.Optional(Uuid()),
    status: Type.Optional(ReminderStatus()),
    reminder_level: Type.Optional(ReminderLevel()),
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
