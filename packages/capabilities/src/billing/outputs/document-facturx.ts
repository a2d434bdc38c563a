import { defineCapabilityHandler } from '../../define.js';
import { billingContract } from '../common.js';
import { archivedRendering, chargeOnlyRenderings } from './archive.js';
import { invoiceToExport } from './issued.js';
import { renderInPool } from './render-pool.js';
import { listedWarnings } from './warnings.js';

/**
 * `billing.document.facturx`: the PDF/A-3b of an issued invoice or credit note with its CII XML
 * (Factur-X profile EN 16931) embedded, the XML checked against the Factur-X and EN 16931 rules first.
 */
export const billingDocumentFacturxHandler = defineCapabilityHandler<{ document_id: string }, unknown>({
  contract: billingContract('billing.document.facturx'),
  async handle(input, ctx) {
    const stored = await invoiceToExport(ctx, input.document_id, 'Factur-X');
    const { rendering, archive, rendered } = await archivedRendering(ctx, stored, 'facturx', () =>
      renderInPool('facturx', stored),
    );
    chargeOnlyRenderings(ctx, rendered);
    const { validation, fields } = rendering.details;
    return {
      filename: rendering.filename,
      mime_type: 'application/pdf',
      size_bytes: rendering.bytes.length,
      pdf_base64: rendering.bytes.toString('base64'),
      archive,
      ...fields,
      warnings: listedWarnings(validation),
      validation: validation ?? null,
    };
  },
});
