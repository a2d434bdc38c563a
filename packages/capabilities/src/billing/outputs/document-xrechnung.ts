import { defineCapabilityHandler } from '../../define.js';
import { billingContract } from '../common.js';
import { archivedRendering, chargeOnlyRenderings } from './archive.js';
import { invoiceToExport } from './issued.js';
import { renderInPool } from './render-pool.js';
import { listedWarnings } from './warnings.js';

/**
 * `billing.document.xrechnung`: XRechnung 3.0 (UBL Invoice or CreditNote) of an issued invoice or
 * credit note, checked against the XSD, EN 16931 and XRechnung rules before it is answered or archived.
 */
export const billingDocumentXrechnungHandler = defineCapabilityHandler<{ document_id: string }, unknown>({
  contract: billingContract('billing.document.xrechnung'),
  async handle(input, ctx) {
    const stored = await invoiceToExport(ctx, input.document_id, 'XRechnung');
    const { rendering, archive, rendered } = await archivedRendering(ctx, stored, 'xrechnung', () =>
      renderInPool('xrechnung', stored),
    );
    chargeOnlyRenderings(ctx, rendered);
    const { validation, fields } = rendering.details;
    return {
      filename: rendering.filename,
      mime_type: 'application/xml',
      size_bytes: rendering.bytes.length,
      xml_base64: rendering.bytes.toString('base64'),
      archive,
      ...fields,
      warnings: listedWarnings(validation),
      validation: validation ?? null,
    };
  },
});
