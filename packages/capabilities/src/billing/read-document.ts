import type { Sql } from '../sql.js';
import { runStatement } from '../sql.js';
import type {
  BillingDocumentRow,
  BillingLineRow,
  BillingPaymentRow,
  StoredBillingDocument,
} from './records.js';
import { selectDocument, selectLines, selectPaymentsOfDocument } from './sql.js';

/**
 * The document `documentId` of `organizationId` with its lines (by position) and payments, or
 * undefined when there is none in this organization (another organization's id reads as missing).
 */
export async function readDocument(
  sql: Sql,
  organizationId: string,
  documentId: string,
): Promise<StoredBillingDocument | undefined> {
  const { rows } = await runStatement<BillingDocumentRow>(sql, selectDocument, [organizationId, documentId]);
  const [document] = rows;
  if (document === undefined) return undefined;
  const [lines, payments] = [
    await runStatement<BillingLineRow>(sql, selectLines, [organizationId, documentId]),
    await runStatement<BillingPaymentRow>(sql, selectPaymentsOfDocument, [organizationId, documentId]),
  ];
  return { document, lines: lines.rows, payments: payments.rows };
}
