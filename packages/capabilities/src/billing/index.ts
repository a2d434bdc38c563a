import type { CapabilityHandler } from '../define.js';
import type { CapabilityDomain } from '../domain.js';
import { billingAccountSaveHandler } from './account-save.js';
import { billingAccountSearchHandler } from './account-search.js';
import { billingBankAccountSaveHandler } from './bank-account-save.js';
import {
  billingConvertOrderToInvoiceHandler,
  billingConvertQuoteToOrderHandler,
} from './document-convert.js';
import { billingCreateDraftHandler } from './document-create-draft.js';
import { billingDocumentFinalizeHandler } from './document-finalize.js';
import { billingDocumentListHandler, billingDocumentSearchHandler } from './document-query.js';
import { billingDocumentReadHandler } from './document-read.js';
import { billingDocumentVoidHandler } from './document-void.js';
import { billingItemSaveHandler } from './item-save.js';
import { billingItemSearchHandler } from './item-search.js';
import { billingMigrations } from './migrations.js';
import { billingOutputHandlers, billingOutputMigrations } from './outputs/index.js';
import { type RenderPoolOptions, useRenderPool } from './outputs/render-pool.js';
import { billingPaymentListHandler } from './payment-list.js';
import { billingPaymentRecordHandler } from './payment-record.js';
import { billingProfileSaveHandler } from './profile-save.js';
import { billingReminderCreateHandler } from './reminder-create.js';
import { billingReminderListHandler } from './reminder-list.js';
import { billingReminderPdfHandler } from './reminder-pdf.js';
import { billingReminderSendHandler } from './reminder-send.js';
import { billingSettings, renderingOf } from './settings.js';

/** Every billing handler, quote to cash, then the outputs of an issued document (`outputs/`). */
export const billingHandlers: readonly CapabilityHandler<never>[] = [
  billingProfileSaveHandler,
  billingBankAccountSaveHandler,
  billingAccountSaveHandler,
  billingAccountSearchHandler,
  billingItemSaveHandler,
  billingItemSearchHandler,
  billingCreateDraftHandler,
  billingDocumentReadHandler,
  billingDocumentListHandler,
  billingDocumentSearchHandler,
  billingConvertQuoteToOrderHandler,
  billingConvertOrderToInvoiceHandler,
  billingDocumentFinalizeHandler,
  billingDocumentVoidHandler,
  billingPaymentRecordHandler,
  billingPaymentListHandler,
  billingReminderCreateHandler,
  billingReminderListHandler,
  billingReminderPdfHandler,
  billingReminderSendHandler,
  ...billingOutputHandlers,
] as readonly CapabilityHandler<never>[];

/** Options of {@link createBillingDomain}. */
export interface BillingDomainOptions {
  /** The render pool's time budget and threads (over BILLING_RENDER_TIMEOUT_MS, BILLING_RENDER_THREADS). */
  readonly rendering?: RenderPoolOptions;
}

/**
 * `billing`: quote to cash — accounts, items, documents with EN 16931 totals, numbers, payments,
 * reminders — and the documents' PDF, XRechnung and Factur-X, archived and sent. Started in a gateway,
 * it holds the render pool (outputs/render-pool.ts) and ends its threads on stop.
 */
export function createBillingDomain(options: BillingDomainOptions = {}): CapabilityDomain {
  return {
    name: 'billing',
    handlers: billingHandlers,
    migrations: [...billingMigrations, ...billingOutputMigrations],
    settings: billingSettings,
    start: (host) => ({ stop: useRenderPool({ ...renderingOf(host.settings), ...options.rendering }) }),
  };
}

/** The billing domain with the render pool's settings from its host (the gateway's environment). */
export const billingDomain: CapabilityDomain = createBillingDomain();
