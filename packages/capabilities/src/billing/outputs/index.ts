import type { CapabilityHandler } from '../../define.js';
import { billingDocumentFacturxHandler } from './document-facturx.js';
import { billingDocumentPdfHandler } from './document-pdf.js';
import { billingDocumentSendHandler } from './document-send.js';
import { billingDocumentXrechnungHandler } from './document-xrechnung.js';

export { billingOutputMigrations } from './migrations.js';

/** The outputs of an issued document: PDF, XRechnung, Factur-X, and sending them. */
export const billingOutputHandlers = [
  billingDocumentPdfHandler,
  billingDocumentXrechnungHandler,
  billingDocumentFacturxHandler,
  billingDocumentSendHandler,
] as readonly CapabilityHandler<never>[];
