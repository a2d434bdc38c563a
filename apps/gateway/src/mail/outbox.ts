import type { Knex } from 'knex';
import type { Logger } from '../logger.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { MailAttachmentFile, MailTransport } from './transport.js';

/** A mail to stage inside the business transaction. */
export interface StagedMail {
  readonly to: string;
  readonly subject: string;
  /** The body; it carries a one-time code, so it is stored encrypted and erased once sent. */
  readonly text: string;
  readonly otpCodeId?: string;
}

const MAX_ATTEMPTS = 5;
const LOCK_SECONDS = 60;
const DRAIN_BATCH = 20;

/** Inserts a queued mail in the caller's transaction; returns its outbox id. */
export async function stageMail(trx: Knex.Transaction, box: SecretBox, mail: StagedMail): Promise<string> {
  const [row] = await trx('mail_outbox')
    .insert({
      to_address: mail.to,
      subject: mail.subject,
      body_ciphertext: box.encrypt('mail-body', mail.text),
      otp_code_id: mail.otpCodeId ?? null,
    })
    .returning('id');
  return row.id;
}

/**
 * Sends staged mail after commit (transactionally staged job drain): each row is leased with a
 * compare-and-set so two instances never send it twice, sent, then marked `sent` with its ciphertext
 * erased and its code's delivery status set to `sent`. A failure leaves it queued for {@link drain}
 * (at most 5 attempts, then `failed`). The error text is logged, never the body.
 */
export class MailOutbox {
  readonly #pending = new Set<Promise<void>>();

  constructor(
    private readonly knex: Knex,
    private readonly box: SecretBox,
    private readonly transport: MailTransport,
    private readonly from: string,
    private readonly logger: Logger,
  ) {}

  /** Sends one staged mail in the background; never throws. */
  dispatch(outboxId: string): void {
    const job = this.send(outboxId).then(
      () => undefined,
      (error: unknown) => {
        this.logger.error({ err: error, outbox_id: outboxId }, 'mail dispatch failed');
      },
    );
    this.#pending.add(job);
    void job.finally(() => this.#pending.delete(job));
  }

  /** Retries queued mail whose lease is free; returns how many were sent. */
  async drain(): Promise<number> {
    const rows: Array<{ id: string }> = await this.knex('mail_outbox')
      .where({ status: 'queued' })
      .andWhere((query) => query.whereNull('locked_until').orWhere('locked_until', '<', this.knex.fn.now()))
      .orderBy('created_at')
      .limit(DRAIN_BATCH)
      .select('id');
    let sent = 0;
    for (const { id } of rows) if (await this.send(id)) sent += 1;
    return sent;
  }

  /** Waits for background sends started so far (shutdown and tests). */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  private async send(outboxId: string): Promise<boolean> {
    const leased = await this.knex.raw(
      `UPDATE mail_outbox SET attempts = attempts + 1, locked_until = now() + make_interval(secs => ?)
        WHERE id = ? AND status = 'queued' AND (locked_until IS NULL OR locked_until < now())
        RETURNING to_address, subject, body_ciphertext, attachments_ciphertext, otp_code_id, attempts`,
      [LOCK_SECONDS, outboxId],
    );
    const row = leased.rows[0];
    if (!row) return false;
    let messageId: string;
    try {
      const text = this.box.decrypt('mail-body', Buffer.from(row.body_ciphertext)).toString('utf8');
      messageId = await this.transport.send({
        from: this.from,
        to: row.to_address,
        subject: row.subject,
        text,
        attachments: row.attachments_ciphertext ? this.attachments(row.attachments_ciphertext) : undefined,
      });
    } catch (error) {
      const failed = row.attempts >= MAX_ATTEMPTS;
      await this.knex('mail_outbox')
        .where({ id: outboxId })
        .update({
          status: failed ? 'failed' : 'queued',
          locked_until: failed ? null : this.knex.raw("now() + interval '30 seconds'"),
          last_error: String((error as Error)?.message ?? error).slice(0, 500),
        });
      this.logger.warn({ outbox_id: outboxId, attempts: row.attempts, failed }, 'mail send failed');
      return false;
    }
    await this.knex.transaction(async (trx) => {
      await trx('mail_outbox').where({ id: outboxId }).update({
        status: 'sent',
        sent_at: trx.fn.now(),
        body_ciphertext: null,
        attachments_ciphertext: null,
        message_id: messageId,
        locked_until: null,
      });
      if (row.otp_code_id) {
        await trx('otp_codes')
          .where({ id: row.otp_code_id, delivery_status: 'queued' })
          .update({ delivery_status: 'sent' });
      }
    });
    this.logger.info({ outbox_id: outboxId, transport: this.transport.kind }, 'mail sent');
    return true;
  }

  /** The attachments staged by a domain (src/mail/domain-mail.ts), decrypted. */
  private attachments(ciphertext: Uint8Array): MailAttachmentFile[] {
    const plain = this.box.decrypt('mail-attachments', Buffer.from(ciphertext)).toString('utf8');
    const stored = JSON.parse(plain) as Array<{ filename: string; contentType: string; content: string }>;
    return stored.map((attachment) => ({
      filename: attachment.filename,
      contentType: attachment.contentType,
      content: Buffer.from(attachment.content, 'base64'),
    }));
  }
}
