import type { Knex } from 'knex';

/**
 * The onboarding and access tables: apps, organizations, installations, API keys (bootstrap,
 * installation and operator keys share one table and one verification path), one-time codes,
 * idempotency records, the mail outbox, and the operator's access settings.
 *
 * Secrets are never stored in plaintext: keys as sha-256 of the secret part, codes as an HMAC, replay
 * bodies and queued mails that carry a secret as AES-256-GCM ciphertext.
 */
export const createOnboarding = {
  name: '20261122010000_create_onboarding',
  async up(knex: Knex): Promise<void> {
    const now = knex.fn.now();
    const uuidPk = (table: Knex.CreateTableBuilder) =>
      table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));

    await knex.schema.createTable('apps', (table) => {
      uuidPk(table);
      table.text('slug').notNullable().index();
      table.text('name').notNullable();
      table.text('description');
      table.text('contact_email');
      table.text('homepage_url');
      table.text('verification_status').notNullable().defaultTo('unverified');
      table.text('owner_email').notNullable();
      table.text('agent_email');
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(now);
    });

    await knex.schema.createTable('organizations', (table) => {
      uuidPk(table);
      table.text('name').notNullable();
      table.text('short_id').notNullable().unique();
      table.boolean('is_active').notNullable().defaultTo(true);
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(now);
      table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(now);
    });

    await knex.schema.createTable('installations', (table) => {
      uuidPk(table);
      table.uuid('organization_id').notNullable().references('organizations.id').index();
      table.uuid('app_id').notNullable().references('apps.id').unique();
      table.text('owner_email').notNullable();
      table.uuid('owner_user_id').notNullable();
      table.text('sb_user_id').notNullable().unique();
      table.text('agent_email');
      table.timestamp('owner_verified_at', { useTz: true });
      table.timestamp('agent_email_verified_at', { useTz: true });
      table.text('operator_approval_status').notNullable().defaultTo('pending').index();
      table.timestamp('operator_approved_at', { useTz: true });
      table.timestamp('operator_decided_at', { useTz: true });
      table.text('operator_decided_by');
      table.specificType('scopes', 'text[]').notNullable();
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(now);
      table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(now);
    });
    await knex.raw(
      `ALTER TABLE installations ADD CONSTRAINT installations_approval_status_check
       CHECK (operator_approval_status IN ('pending', 'approved', 'blocked'))`,
    );

    await knex.schema.createTable('api_keys', (table) => {
      uuidPk(table);
      table.text('prefix').notNullable().unique();
      table.text('secret_hash').notNullable();
      table.text('kind').notNullable();
      table.uuid('app_id').references('apps.id');
      table.uuid('installation_id').references('installations.id').index();
      table.uuid('organization_id').references('organizations.id');
      table.specificType('scopes', 'text[]').notNullable();
      table.text('label');
      table.timestamp('expires_at', { useTz: true });
      table.timestamp('revoked_at', { useTz: true });
      // 'rotated' when /keys/rotate revoked it (the old key may still replay that rotation's answer).
      table.text('revoked_reason');
      table.timestamp('consumed_at', { useTz: true });
      table.uuid('rotated_from_id').references('api_keys.id');
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(now);
      table.timestamp('last_used_at', { useTz: true });
    });
    await knex.raw(
      `ALTER TABLE api_keys ADD CONSTRAINT api_keys_kind_check
       CHECK (kind IN ('bootstrap', 'installation', 'operator'))`,
    );

    await knex.schema.createTable('otp_codes', (table) => {
      uuidPk(table);
      table.uuid('installation_id').notNullable().references('installations.id');
      table.text('purpose').notNullable();
      table.text('code_mac').notNullable();
      table.text('email').notNullable();
      table.text('correlation_id').unique();
      table.text('delivery_status').notNullable().defaultTo('queued');
      table.integer('attempts').notNullable().defaultTo(0);
      table.timestamp('expires_at', { useTz: true }).notNullable();
      table.timestamp('consumed_at', { useTz: true });
      table.timestamp('voided_at', { useTz: true });
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(now);
      table.index(['installation_id', 'purpose', 'created_at']);
    });
    // One statement per raw(): PGlite runs raw SQL as a prepared statement.
    await knex.raw(
      `ALTER TABLE otp_codes ADD CONSTRAINT otp_codes_purpose_check CHECK (purpose IN ('owner', 'agent'))`,
    );
    await knex.raw(
      `ALTER TABLE otp_codes ADD CONSTRAINT otp_codes_delivery_status_check
         CHECK (delivery_status IN ('queued', 'sent', 'suppressed'))`,
    );

    // Security rules §1.3: the database arbitrates idempotency, so it holds across instances and crashes.
    await knex.schema.createTable('idempotency_keys', (table) => {
      table.text('scope_tenant').notNullable();
      table.text('scope_principal').notNullable();
      table.text('idem_key').notNullable();
      table.text('fingerprint').notNullable();
      table.text('state').notNullable();
      table.text('recovery_point').notNullable().defaultTo('started');
      table.text('locked_by');
      table.timestamp('lease_expires_at', { useTz: true });
      table.integer('response_status');
      table.jsonb('response_headers');
      table.binary('response_body');
      table.boolean('response_encrypted').notNullable().defaultTo(false);
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(now);
      table
        .timestamp('expires_at', { useTz: true })
        .notNullable()
        .defaultTo(knex.raw("now() + interval '24 hours'"));
      table.primary(['scope_tenant', 'scope_principal', 'idem_key']);
      table.index(['expires_at']);
    });
    await knex.raw(
      `ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_state_check
         CHECK (state IN ('in_progress', 'completed'))`,
    );
    await knex.raw(
      `ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_key_length_check
         CHECK (char_length(idem_key) BETWEEN 16 AND 128)`,
    );

    // Mail is staged in the same transaction as the state change and sent after commit; a body that
    // carries a code is stored encrypted and erased once sent.
    await knex.schema.createTable('mail_outbox', (table) => {
      uuidPk(table);
      table.text('to_address').notNullable();
      table.text('subject').notNullable();
      table.binary('body_ciphertext');
      table.text('status').notNullable().defaultTo('queued').index();
      table.integer('attempts').notNullable().defaultTo(0);
      table.text('last_error');
      table.uuid('otp_code_id').references('otp_codes.id');
      table.text('message_id');
      // Send lease: one instance sends a row at a time (compare-and-set on this column).
      table.timestamp('locked_until', { useTz: true });
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(now);
      table.timestamp('sent_at', { useTz: true });
    });
    await knex.raw(
      `ALTER TABLE mail_outbox ADD CONSTRAINT mail_outbox_status_check
       CHECK (status IN ('queued', 'sent', 'failed'))`,
    );

    // Addresses the gateway will not mail (the operator's list): their codes are `suppressed`.
    await knex.schema.createTable('mail_suppressions', (table) => {
      table.text('email').primary();
      table.text('reason').notNullable();
      table.text('created_by').notNullable();
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(now);
    });

    // Beta access: `open` (default) or `invite_only`; invites are by owner email.
    await knex.schema.createTable('gateway_settings', (table) => {
      table.text('key').primary();
      table.jsonb('value').notNullable();
      table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(now);
    });
    await knex.schema.createTable('access_invites', (table) => {
      table.text('email').primary();
      table.text('invited_by').notNullable();
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(now);
      table.timestamp('used_at', { useTz: true });
    });
  },
  async down(knex: Knex): Promise<void> {
    for (const table of [
      'access_invites',
      'gateway_settings',
      'mail_suppressions',
      'mail_outbox',
      'idempotency_keys',
      'otp_codes',
      'api_keys',
      'installations',
      'organizations',
      'apps',
    ]) {
      await knex.schema.dropTableIfExists(table);
    }
  },
};
