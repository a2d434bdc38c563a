import { createHash } from 'node:crypto';
import { defineCapabilityHandler } from '../../define.js';
import { runStatement } from '../../sql.js';
import { MAX_DOCUMENT_DELIVERIES } from '../bounds.js';
import { billingContract, conflict, documentRecord, invalid } from '../common.js';
import { readDocument } from '../read-document.js';
import { archivedRendering } from './archive.js';
import { deliveryRecord } from './delivery.js';
import { deliveryMail } from './delivery-mail.js';
import { documentToRender } from './issued.js';
import { renderInPool } from './render-pool.js';
import type { OutputFormat, Rendering } from './rendering.js';
import {
  countDeliveriesOfDocument,
  type DeliveryRow,
  insertDelivery,
  markSent,
  selectAccountFormat,
} from './sql.js';

interface SendInput {
  readonly document_id: string;
  readonly to?: string;
  readonly e_invoice_format?: OutputFormat;
  readonly message?: string | null;
}

const E_INVOICE_TYPES = ['invoice', 'credit_note'];

/**
 * `billing.document.send`: mails an issued document to its counterparty (or `to`) with its archived
 * PDF, plus the XRechnung XML, or the Factur-X PDF in place of the plain one, as asked or as the
 * account prefers. The mail is staged in the invoke's transaction and leaves after it commits; the
 * delivery is recorded and the document marked sent (an open one becomes `sent`).
 */
export const billingDocumentSendHandler = defineCapabilityHandler<SendInput, unknown>({
  contract: billingContract('billing.document.send'),
  async handle(input, ctx) {
    const stored = await documentToRender(ctx, input.document_id);
    const { document } = stored;
    if (document.status === 'draft') {
      conflict(`Document ${document.id} is a draft: finalize it first (billing.document.finalize).`);
    }
    if (document.status === 'void') conflict(`Document ${document.id} is void and is not sent.`);
    const { rows: counted } = await runStatement<{ count: number }>(ctx.sql, countDeliveriesOfDocument, [
      ctx.organizationId,
      document.id,
    ]);
    if ((counted[0]?.count ?? 0) >= MAX_DOCUMENT_DELIVERIES) {
      conflict(
        `Document ${document.id} was sent ${MAX_DOCUMENT_DELIVERIES} times, the most a document keeps; send its PDF from the archive (billing.document.pdf) instead.`,
      );
    }
    const to = input.to ?? document.counterparty_email;
    if (!to) invalid('/params/to', "is required: the document's counterparty has no email");
    const format = await formatToSend(ctx.sql, ctx.organizationId, document, input.e_invoice_format);

    const renderings: Rendering[] = [];
    const archived = async (kind: OutputFormat, render: () => Promise<Rendering>) =>
      renderings.push((await archivedRendering(ctx, stored, kind, render)).rendering);
    if (format === 'facturx') await archived('facturx', () => renderInPool('facturx', stored));
    else await archived('pdf', () => renderInPool('pdf', stored));
    if (format === 'xrechnung') await archived('xrechnung', () => renderInPool('xrechnung', stored));

    const { subject, text } = deliveryMail(stored, input.message);
    await ctx.mail.stage({
      to,
      subject,
      text,
      attachments: renderings.map((file) => ({
        filename: file.filename,
        contentType: file.mimeType,
        content: file.bytes,
      })),
    });
    const attachments = renderings.map((file) => ({
      filename: file.filename,
      mime_type: file.mimeType,
      size_bytes: file.bytes.length,
      sha256: createHash('sha256').update(file.bytes).digest('hex'),
    }));
    const { rows } = await runStatement<DeliveryRow>(ctx.sql, insertDelivery, [
      ctx.ids.uuid(),
      ctx.organizationId,
      document.id,
      ctx.installationId,
      to,
      subject,
      format,
      JSON.stringify(attachments),
      ctx.now,
    ]);
    await runStatement(ctx.sql, markSent, [ctx.organizationId, document.id, ctx.now]);
    const sent = await readDocument(ctx.sql, ctx.organizationId, document.id);
    return {
      document: documentRecord(sent?.document ?? document),
      delivery: deliveryRecord(rows[0] as DeliveryRow),
    };
  },
});

/**
 * The format asked for, else the account's preference, else the PDF alone. An e-invoice is made of an
 * invoice or credit note only: asking for one with a quote is refused, a preference is not applied.
 */
async function formatToSend(
  sql: Parameters<typeof runStatement>[0],
  organizationId: string,
  document: { id: string; document_type: string; account_id: string | null },
  asked: OutputFormat | undefined,
): Promise<OutputFormat> {
  const eInvoiceable = E_INVOICE_TYPES.includes(document.document_type);
  if (asked !== undefined) {
    if (asked !== 'pdf' && !eInvoiceable) {
      invalid(
        '/params/e_invoice_format',
        `is for invoices and credit notes; this is a ${document.document_type}`,
      );
    }
    return asked;
  }
  if (!eInvoiceable || document.account_id === null) return 'pdf';
  const { rows } = await runStatement<{ e_invoice_format: OutputFormat | null }>(sql, selectAccountFormat, [
    organizationId,
    document.account_id,
  ]);
  return rows[0]?.e_invoice_format ?? 'pdf';
}
