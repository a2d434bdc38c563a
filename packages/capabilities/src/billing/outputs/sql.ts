import type { SqlStatement } from '../../sql.js';
import type { RenderingDetails } from './rendering.js';

export interface ArchiveRow {
  readonly filename: string;
  readonly mime_type: string;
  readonly content: Uint8Array;
  readonly sha256: string;
  readonly size_bytes: number;
  readonly details: RenderingDetails;
  readonly stored_at: Date;
}

const ARCHIVE_COLUMNS = 'filename, mime_type, content, sha256, size_bytes, details, stored_at';

/** $1 organization, $2 document, $3 format. */
export const selectArchived: SqlStatement = {
  name: 'billing.archive.select',
  text: `select ${ARCHIVE_COLUMNS} from billing_document_archive
where organization_id = $1 and document_id = $2 and format = $3`,
};

/**
 * The first rendering wins: a concurrent second one inserts nothing and reads the first back.
 * $1 organization, $2 document, $3 format, $4 filename, $5 mime type, $6 content, $7 sha256,
 * $8 size, $9 details (json text), $10 now.
 */
export const insertArchived: SqlStatement = {
  name: 'billing.archive.insert',
  text: `insert into billing_document_archive (organization_id, document_id, format, filename, mime_type, content,
  sha256, size_bytes, details, stored_at)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10)
on conflict (organization_id, document_id, format) do nothing`,
};

export interface DeliveryRow {
  readonly id: string;
  readonly document_id: string;
  readonly channel: 'email';
  readonly recipient: string;
  readonly subject: string;
  readonly e_invoice_format: 'pdf' | 'xrechnung' | 'facturx';
  readonly attachments: { filename: string; mime_type: string; size_bytes: number; sha256: string }[];
  readonly sent_at: Date;
}

const DELIVERY_COLUMNS =
  'id, document_id, channel, recipient, subject, e_invoice_format, attachments, sent_at';

/**
 * $1 id, $2 organization, $3 document, $4 installation, $5 recipient, $6 subject, $7 format,
 * $8 attachments (json text), $9 now.
 */
export const insertDelivery: SqlStatement = {
  name: 'billing.delivery.insert',
  text: `insert into billing_document_deliveries (id, organization_id, document_id, installation_id, channel,
  recipient, subject, e_invoice_format, attachments, sent_at)
values ($1, $2, $3, $4, 'email', $5, $6, $7, $8::jsonb, $9)
returning ${DELIVERY_COLUMNS}`,
};

/** $1 organization, $2 document, $3 the most a read lists. */
export const selectDeliveries: SqlStatement = {
  name: 'billing.delivery.select_of_document',
  text: `select ${DELIVERY_COLUMNS} from billing_document_deliveries
where organization_id = $1 and document_id = $2 order by sent_at, id limit $3`,
};

/** How many deliveries a document has. $1 organization, $2 document. */
export const countDeliveriesOfDocument: SqlStatement = {
  name: 'billing.delivery.count_of_document',
  text: 'select count(*)::int as count from billing_document_deliveries where organization_id = $1 and document_id = $2',
};

/** An open document becomes `sent`; any other keeps its status. $1 organization, $2 id, $3 now. */
export const markSent: SqlStatement = {
  name: 'billing.document.mark_sent',
  text: `update billing_documents set sent_at = $3, updated_at = $3,
  status = case when status = 'open' then 'sent' else status end
where organization_id = $1 and id = $2`,
};

/** The recipient's preferred e-invoice format. $1 organization, $2 account. */
export const selectAccountFormat: SqlStatement = {
  name: 'billing.account.select_e_invoice_format',
  text: 'select e_invoice_format from billing_accounts where organization_id = $1 and id = $2',
};
