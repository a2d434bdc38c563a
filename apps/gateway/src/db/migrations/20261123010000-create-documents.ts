import type { Knex } from 'knex';

/**
 * Documents uploaded through `documents.document.upload`, content in the row (bytea, at most 10 MiB;
 * PostgreSQL moves values that large to TOAST storage, so scans of the other columns stay cheap).
 *
 * Tenancy: `organization_id` comes from the verified installation key, never from params; every
 * lookup is by `(organization_id, …)`, hence the composite indexes. `installation_id` records which
 * installation uploaded it. `sha256` is lower-case hex of the content, kept for integrity checks and
 * deduplication by readers; identical content uploaded twice with different idempotency keys is two rows.
 */
export const createDocuments = {
  name: '20261123010000_create_documents',
  async up(knex: Knex): Promise<void> {
    await knex.schema.createTable('documents', (table) => {
      table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      table
        .uuid('organization_id')
        .notNullable()
        .references('id')
        .inTable('organizations')
        .onDelete('CASCADE');
      table.uuid('installation_id').notNullable().references('id').inTable('installations');
      table.text('file_name').notNullable();
      table.text('mime_type').notNullable();
      table.integer('size_bytes').notNullable();
      table.text('sha256').notNullable();
      table.binary('content').notNullable();
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.index(['organization_id', 'created_at']);
      table.index(['organization_id', 'sha256']);
    });
    await knex.raw(
      `ALTER TABLE documents ADD CONSTRAINT documents_size_check
       CHECK (size_bytes >= 0 AND size_bytes = octet_length(content))`,
    );
    await knex.raw(
      `ALTER TABLE documents ADD CONSTRAINT documents_sha256_check CHECK (sha256 ~ '^[0-9a-f]{64}$')`,
    );
  },
  async down(knex: Knex): Promise<void> {
    await knex.schema.dropTable('documents');
  },
};
