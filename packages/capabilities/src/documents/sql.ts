import type { SqlStatement } from '../sql.js';

/** The stored document's columns a handler answers with. */
export interface InsertedDocumentRow {
  readonly id: string;
  readonly created_at: Date;
}

/**
 * One document row: $1 id, $2 organization, $3 installation, $4 file name, $5 mime type, $6 size,
 * $7 sha256 (lower-case hex), $8 content (bytea), $9 created_at. One statement, one round trip.
 */
export const insertDocument: SqlStatement = {
  name: 'documents.document.insert',
  text: `insert into documents
  (id, organization_id, installation_id, file_name, mime_type, size_bytes, sha256, content, created_at)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
returning id, created_at`,
};
