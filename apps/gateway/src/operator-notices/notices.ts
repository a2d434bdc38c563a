import type { Sql } from '@agw/capabilities';
import type { Knex } from 'knex';
import { knexTransaction, sqlOfKnexTransaction } from '../db/knex-transaction.js';
import type { MailOutbox } from '../mail/outbox.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { clean, type NoticeLine, operatorMail } from './messages.js';

/** Something that started waiting for an operator. */
export interface NewNotice {
  readonly kind: 'installation' | 'approval';
  /** The installation's or the approval's id. */
  readonly subjectId: string;
  /** One line naming it: names, capability id and risk; never params, tokens or codes. */
  readonly summary: string;
}

/**
 * Mail to the operators (OPERATOR_EMAIL) when an installation or a run approval starts waiting.
 *
 * Throttle: when no operator mail went out in the last OPERATOR_DIGEST_SECONDS, the new notice is
 * mailed at once; otherwise it waits, and once the window since the last mail has passed one digest
 * lists everything that arrived meanwhile ({@link OperatorNotices.digest}, on a timer). So a burst of
 * a thousand approvals is two mails per address, and a lone one is never delayed.
 */
export interface OperatorNotices {
  /** False without OPERATOR_EMAIL: nothing is recorded or mailed. */
  readonly enabled: boolean;
  /**
   * Records `notice` in the caller's transaction `sql` and stages the mail when one is due; returns
   * the outbox ids to {@link dispatch} after the commit.
   */
  record(sql: Sql, notice: NewNotice): Promise<string[]>;
  /** Sends staged operator mail in the background (after the commit). */
  dispatch(outboxIds: readonly string[]): void;
  /** Stages and sends the digest when one is due; returns how many notices it listed. */
  digest(): Promise<number>;
}

/** Options of {@link createOperatorNotices}. */
export interface OperatorNoticeOptions {
  readonly knex: Knex;
  readonly box: SecretBox;
  readonly outbox: MailOutbox;
  readonly recipients: readonly string[];
  readonly digestSeconds: number;
  /** PUBLIC_BASE_URL, for the console links. */
  readonly publicBaseUrl: string;
  /** The time of the throttle's decisions (tests move it). */
  readonly now?: () => Date;
}

/** At most this many notices are listed in one mail; the rest are counted ("and 12 more"). */
export const NOTICES_LISTED = 50;
// One operator mail decision at a time across instances, held to the end of the caller's transaction.
const LOCK = "SELECT pg_advisory_xact_lock(hashtext('agw.operator-notices'))";

export function createOperatorNotices(options: OperatorNoticeOptions): OperatorNotices {
  const { recipients, digestSeconds, box, outbox } = options;
  const now = options.now ?? (() => new Date());
  const enabled = recipients.length > 0;
  const linkOf = (kind: NoticeLine['kind'], subjectId: string) =>
    kind === 'approval'
      ? `${options.publicBaseUrl}/console/approvals#approval-${subjectId}`
      : `${options.publicBaseUrl}/console/installations`;

  /** Stages one mail per recipient listing every unmailed notice, when the window allows one. */
  const stageDue = async (sql: Sql, at: Date): Promise<{ ids: string[]; listed: number }> => {
    await sql.query(LOCK);
    const last = await sql.query<{ last: Date | string | null }>(
      'SELECT max(mailed_at) AS last FROM operator_notices',
    );
    const lastMailed = last.rows[0]?.last;
    if (lastMailed && at.getTime() - new Date(lastMailed).getTime() < digestSeconds * 1000) {
      return { ids: [], listed: 0 };
    }
    const due = await sql.query<{
      kind: NoticeLine['kind'];
      subject_id: string;
      summary: string;
      created_at: Date | string;
    }>(
      `UPDATE operator_notices SET mailed_at = $1 WHERE mailed_at IS NULL
        RETURNING kind, subject_id, summary, created_at`,
      [at],
    );
    if (due.rows.length === 0) return { ids: [], listed: 0 };
    const rows = [...due.rows].sort(
      (a, b) => new Date(a.created_at).getTime() - new Date(b.created_at).getTime(),
    );
    const mail = operatorMail(
      rows.slice(0, NOTICES_LISTED).map((row) => ({
        kind: row.kind,
        summary: row.summary,
        link: linkOf(row.kind, row.subject_id),
        createdAt: new Date(row.created_at),
      })),
      rows.length,
      digestSeconds,
    );
    const ids: string[] = [];
    for (const to of recipients) {
      const inserted = await sql.query<{ id: string }>(
        'INSERT INTO mail_outbox (to_address, subject, body_ciphertext) VALUES ($1, $2, $3) RETURNING id',
        [to, mail.subject, box.encrypt('mail-body', mail.text)],
      );
      if (inserted.rows[0]) ids.push(inserted.rows[0].id);
    }
    return { ids, listed: rows.length };
  };

  const dispatch = (ids: readonly string[]) => {
    for (const id of ids) outbox.dispatch(id);
  };

  return {
    enabled,
    async record(sql, notice) {
      if (!enabled) return [];
      const at = now();
      await sql.query(
        `INSERT INTO operator_notices (kind, subject_id, summary, created_at) VALUES ($1, $2, $3, $4)
          ON CONFLICT (kind, subject_id) DO NOTHING`,
        [notice.kind, notice.subjectId, clean(notice.summary), at],
      );
      return (await stageDue(sql, at)).ids;
    },
    dispatch,
    async digest() {
      if (!enabled) return 0;
      const staged = await knexTransaction(options.knex, (trx) => stageDue(sqlOfKnexTransaction(trx), now()));
      dispatch(staged.ids);
      return staged.listed;
    },
  };
}
