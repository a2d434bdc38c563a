import type { Sql } from '@agw/capabilities';
import type { Knex } from 'knex';
import { knexTransaction, sqlOfKnexTransaction } from '../db/knex-transaction.js';
import type { Logger } from '../logger.js';
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
   * Records `notice` in the caller's transaction `sql`: one insert, no lock, so creating approvals and
   * organizations never waits on another's mail decision. Call {@link announce} after the commit.
   */
  record(sql: Sql, notice: NewNotice): Promise<void>;
  /**
   * After the commit of {@link record}: mails `notice` at once when the window allows, in a short
   * transaction of its own. When another instance is deciding right now (the lock is only tried) it
   * leaves the notice to the digest. Never rejects: a failure is logged, the digest sends the notice.
   */
  announce(notice: NewNotice): Promise<void>;
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
  readonly logger: Logger;
  /** The time of the throttle's decisions (tests move it). */
  readonly now?: () => Date;
}

/** At most this many notices are listed in one mail; the rest are counted ("and 12 more"). */
export const NOTICES_LISTED = 50;
// One operator mail decision at a time across instances, in a short transaction of its own: the digest
// waits for it, an announcement only tries it.
const LOCK = "SELECT pg_advisory_xact_lock(hashtext('agw.operator-notices'))";
const TRY_LOCK = "SELECT pg_try_advisory_xact_lock(hashtext('agw.operator-notices')) AS locked";
const NOTHING_STAGED = { ids: [], listed: 0 };

export function createOperatorNotices(options: OperatorNoticeOptions): OperatorNotices {
  const { recipients, digestSeconds, box, outbox } = options;
  const now = options.now ?? (() => new Date());
  const enabled = recipients.length > 0;
  const linkOf = (kind: NoticeLine['kind'], subjectId: string) =>
    kind === 'approval'
      ? `${options.publicBaseUrl}/console/approvals#approval-${subjectId}`
      : `${options.publicBaseUrl}/console/installations`;

  /**
   * Under the lock, stages one mail per recipient when the window allows one, listing every unmailed
   * notice (the digest) or `own` and those already waiting when the window ended (an announcement: the
   * others arriving with it go to the digest, so a burst stays two mails).
   */
  const stageDue = async (
    sql: Sql,
    at: Date,
    own?: NewNotice,
  ): Promise<{ ids: string[]; listed: number }> => {
    const last = await sql.query<{ last: Date | string | null }>(
      'SELECT max(mailed_at) AS last FROM operator_notices',
    );
    const lastMailed = last.rows[0]?.last;
    const windowEnd = lastMailed ? new Date(new Date(lastMailed).getTime() + digestSeconds * 1000) : null;
    if (windowEnd !== null && at < windowEnd) return NOTHING_STAGED;
    const due = await sql.query<{
      kind: NoticeLine['kind'];
      subject_id: string;
      summary: string;
      created_at: Date | string;
    }>(
      own === undefined
        ? `UPDATE operator_notices SET mailed_at = $1 WHERE mailed_at IS NULL
            RETURNING kind, subject_id, summary, created_at`
        : `UPDATE operator_notices SET mailed_at = $1
            WHERE mailed_at IS NULL AND ((kind = $2 AND subject_id = $3) OR created_at < $4::timestamptz)
            RETURNING kind, subject_id, summary, created_at`,
      own === undefined ? [at] : [at, own.kind, own.subjectId, windowEnd],
    );
    if (due.rows.length === 0) return NOTHING_STAGED;
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
      if (!enabled) return;
      await sql.query(
        `INSERT INTO operator_notices (kind, subject_id, summary, created_at) VALUES ($1, $2, $3, $4)
          ON CONFLICT (kind, subject_id) DO NOTHING`,
        [notice.kind, notice.subjectId, clean(notice.summary), now()],
      );
    },
    async announce(notice) {
      if (!enabled) return;
      try {
        const staged = await knexTransaction(options.knex, async (trx) => {
          const sql = sqlOfKnexTransaction(trx);
          const lock = await sql.query<{ locked: boolean }>(TRY_LOCK);
          return lock.rows[0]?.locked === true ? stageDue(sql, now(), notice) : NOTHING_STAGED;
        });
        dispatch(staged.ids);
      } catch (error) {
        options.logger.error({ err: error }, 'operator notice mail failed (the digest sends it)');
      }
    },
    async digest() {
      if (!enabled) return 0;
      const staged = await knexTransaction(options.knex, async (trx) => {
        const sql = sqlOfKnexTransaction(trx);
        await sql.query(LOCK);
        return stageDue(sql, now());
      });
      dispatch(staged.ids);
      return staged.listed;
    },
  };
}
