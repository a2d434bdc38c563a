import type { CapabilityContext } from '../../define.js';
import { conflict, notFound } from '../common.js';
import { readDocument } from '../read-document.js';
import type { EInvoiceSource } from './xml/index.js';

/**
 * Any document of this organization (a draft too), or not_found; a credit note with the number and
 * date of the invoice it corrects (BT-25, BT-26), which its outputs name.
 */
export async function documentToRender(ctx: CapabilityContext, documentId: string): Promise<EInvoiceSource> {
  const stored = await readDocument(ctx.sql, ctx.organizationId, documentId);
  if (stored === undefined) notFound('document', documentId);
  const corrects = stored.document.corrects_document_id;
  if (corrects === null) return stored;
  const corrected = (await readDocument(ctx.sql, ctx.organizationId, corrects))?.document;
  if (!corrected?.number) return stored;
  return { ...stored, preceding: { number: corrected.number, document_date: corrected.document_date } };
}

/**
 * An issued invoice or credit note of this organization: what an e-invoice is made of. A draft has no
 * number yet, and a quote or order is no invoice; both are refused with what to do instead.
 */
export async function invoiceToExport(
  ctx: CapabilityContext,
  documentId: string,
  format: string,
): Promise<EInvoiceSource> {
  const stored = await documentToRender(ctx, documentId);
  const { document } = stored;
  if (document.document_type !== 'invoice' && document.document_type !== 'credit_note') {
    conflict(
      `${format} is made of an invoice or a credit note; document ${document.id} is a ${document.document_type}.`,
    );
  }
  if (document.status === 'draft') {
    conflict(
      `Document ${document.id} is a draft: finalize it first (billing.document.finalize), a ${format} needs its number.`,
    );
  }
  return stored;
}
