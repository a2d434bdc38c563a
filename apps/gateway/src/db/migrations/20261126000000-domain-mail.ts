import type { Knex } from 'knex';

/**
 * Mail a domain stages (a booking confirmation with its `.ics`, an invoice with its PDF): attachments
 * are stored encrypted beside the encrypted body until sent. Handlers stage mail as the runtime role in
 * their own transaction, so that role may insert an outbox row — only the columns a new mail sets; it
 * cannot read, change or delete any row (the outbox holds other organizations' mail and codes).
 */
export const domainMail = {
  name: '20261126000000_domain_mail',
  async up(knex: Knex): Promise<void> {
    await knex.raw('alter table mail_outbox add column attachments_ciphertext bytea');
    await knex.raw(
      'grant insert (id, to_address, subject, body_ciphertext, attachments_ciphertext) on mail_outbox to agw_runtime',
    );
  },
  async down(knex: Knex): Promise<void> {
    await knex.raw('revoke insert on mail_outbox from agw_runtime');
    await knex.raw('alter table mail_outbox drop column attachments_ciphertext');
  },
};
