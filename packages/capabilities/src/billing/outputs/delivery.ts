import type { Sql } from '../../sql.js';
import { runStatement } from '../../sql.js';
import { MAX_DOCUMENT_DELIVERIES } from '../bounds.js';
import { iso } from '../common.js';
import { type DeliveryRow, selectDeliveries } from './sql.js';

/** The contracts' DeliveryRecord of a stored delivery. */
export function deliveryRecord(row: DeliveryRow) {
  return {
    id: row.id,
    document_id: row.document_id,
    channel: row.channel,
    to: row.recipient,
    subject: row.subject,
    e_invoice_format: row.e_invoice_format,
    attachments: row.attachments,
    sent_at: iso(row.sent_at) as string,
  };
}

/** Every delivery of a document, oldest first. */
export async function deliveriesOf(sql: Sql, organizationId: string, documentId: string) {
  const { rows } = await runStatement<DeliveryRow>(sql, selectDeliveries, [
    organizationId,
    documentId,
    MAX_DOCUMENT_DELIVERIES,
  ]);
  return rows.map(deliveryRecord);
}
