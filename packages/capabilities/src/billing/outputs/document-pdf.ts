import { defineCapabilityHandler } from '../../define.js';
import { billingContract } from '../common.js';
import { archivedRendering, chargeOnlyRenderings } from './archive.js';
import { documentToRender } from './issued.js';
import { renderInPool } from './render-pool.js';

/**
 * `billing.document.pdf`: the PDF/A-3b of any document. An issued one is archived on first call and
 * answered from the archive after that; a draft is rendered each time with a DRAFT mark.
 */
export const billingDocumentPdfHandler = defineCapabilityHandler<{ document_id: string }, unknown>({
  contract: billingContract('billing.document.pdf'),
  async handle(input, ctx) {
    const stored = await documentToRender(ctx, input.document_id);
    const { rendering, archive, rendered } = await archivedRendering(ctx, stored, 'pdf', () =>
      renderInPool('pdf', stored),
    );
    chargeOnlyRenderings(ctx, rendered);
    return {
      filename: rendering.filename,
      mime_type: 'application/pdf',
      size_bytes: rendering.bytes.length,
      pdf_base64: rendering.bytes.toString('base64'),
      archive,
    };
  },
});
