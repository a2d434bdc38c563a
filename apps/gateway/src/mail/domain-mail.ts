import { randomUUID } from 'node:crypto';
import { CapabilityError, type DomainMail, type MailPort, type Sql } from '@agw/capabilities';
import type { SecretBox } from '../secrets/secret-box.js';
import type { MailOutbox } from './outbox.js';

/** What stages domain mail: the box that encrypts it and the outbox that sends it after commit. */
export interface MailStaging {
  readonly box: SecretBox;
  readonly outbox: MailOutbox;
}

/** A mail port bound to one transaction, and the outbox ids it staged there. */
export interface TransactionMail {
  readonly port: MailPort;
  /** Sends what was staged; call once the transaction committed (a rolled-back mail never existed). */
  dispatch(): void;
}

// Headers must not be able to carry a second header (CR/LF) or a second recipient list.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
const CONTROL = /[\u0000-\u001f\u007f]/;
const ADDRESS = /^[^\s@<>,;"]+@[^\s@<>,;"]+$/;
const MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;

const INSERT = `insert into mail_outbox (id, to_address, subject, body_ciphertext, attachments_ciphertext)
values ($1, $2, $3, $4, $5)`;

/**
 * Stages mail into the outbox on `sql` (the caller's transaction; as the runtime role, which may only
 * insert). The body and attachments are encrypted with the server secret; the id is chosen here
 * because the runtime role cannot read the row back.
 */
export function transactionMail(sql: Sql, staging: MailStaging): TransactionMail {
  const staged: string[] = [];
  return {
    port: {
      async stage(mail: DomainMail): Promise<string> {
        checkHeaders(mail);
        const attachments = mail.attachments ?? [];
        const size = attachments.reduce((sum, attachment) => sum + attachment.content.byteLength, 0);
        if (size > MAX_ATTACHMENT_BYTES) throw new Error('Mail attachments are limited to 20 MiB in total.');
        const id = randomUUID();
        const encodedAttachments =
          attachments.length === 0
            ? null
            : staging.box.encrypt(
                'mail-attachments',
                JSON.stringify(
                  attachments.map((attachment) => ({
                    filename: attachment.filename,
                    contentType: attachment.contentType,
                    content: Buffer.from(attachment.content).toString('base64'),
                  })),
                ),
              );
        await sql.query(
          INSERT,
          [id, mail.to, mail.subject, staging.box.encrypt('mail-body', mail.text), encodedAttachments],
          { name: 'agw.mail.stage' },
        );
        staged.push(id);
        return id;
      },
    },
    dispatch() {
      for (const id of staged.splice(0)) staging.outbox.dispatch(id);
    },
  };
}

function checkHeaders(mail: DomainMail): void {
  if (!ADDRESS.test(mail.to)) {
    throw new CapabilityError('validation_failed', `'${mail.to.slice(0, 80)}' is not one email address.`);
  }
  if (CONTROL.test(mail.subject)) throw new Error('A mail subject must not contain control characters.');
  for (const attachment of mail.attachments ?? []) {
    if (CONTROL.test(attachment.filename) || CONTROL.test(attachment.contentType)) {
      throw new Error('Attachment names and types must not contain control characters.');
    }
  }
}
