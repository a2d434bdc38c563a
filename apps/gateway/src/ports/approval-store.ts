import { runStatement } from '@agw/capabilities';
import type { ApprovalRecord, ApprovalStore } from '@agw/guard';
import type { Knex } from 'knex';
import { sqlPoolOf } from '../db/pool.js';
import { transactionOnPool } from '../db/pool-transaction.js';
import { unitOf } from '../invoke/unit-of-work.js';
import { toIso } from '../keys/key-store.js';
import type { NewNotice, OperatorNotices } from '../operator-notices/notices.js';
import type { SecretBox } from '../secrets/secret-box.js';

interface ApprovalRow extends Omit<ApprovalRecord, 'created_at' | 'expires_at' | 'consumed_at'> {
  readonly created_at: Date | string;
  readonly expires_at: Date | string;
  readonly consumed_at: Date | string | null;
}

function toRecord(row: ApprovalRow): ApprovalRecord {
  return {
    approval_id: row.approval_id,
    token_hash: row.token_hash,
    status: row.status,
    organization_id: row.organization_id,
    installation_id: row.installation_id,
    capability_id: row.capability_id,
    capability_version: row.capability_version,
    params_hash: row.params_hash,
    reason: row.reason,
    created_at: toIso(row.created_at),
    expires_at: toIso(row.expires_at),
    consumed_at: row.consumed_at === null ? null : toIso(row.consumed_at),
  };
}

const COLUMNS = `approval_id, token_hash, status, organization_id, installation_id, capability_id,
  capability_version, params_hash, reason, created_at, expires_at, consumed_at`;

// The run's still-pending, unexpired approvals: $1-$4 the run (installation, capability, version, params
// hash), $6 now. The outer UPDATE repeats the test, so a row decided or renewed meanwhile is re-checked.
const PENDING = `installation_id = $1::uuid AND capability_id = $2::text AND capability_version = $3::text
  AND params_hash = $4::text AND status = 'pending' AND expires_at > $6::timestamptz`;
// Rebinds the newest of them to the token hash $5.
const RENEW_TEXT = `UPDATE approvals SET token_hash = $5::text
  WHERE ${PENDING} AND approval_id IN (
    SELECT approval_id FROM approvals WHERE ${PENDING} ORDER BY created_at DESC LIMIT 1)
  RETURNING ${COLUMNS}`;

const RENEW = { name: 'agw.approval.renew', text: RENEW_TEXT };
// Renews, or else inserts the approval ($7 organization, $8 reason, $9 expiry, $10 the encrypted params;
// $6 is its created_at).
const RENEW_OR_CREATE = {
  name: 'agw.approval.renew-or-create',
  text: `WITH renewed AS (${RENEW_TEXT}),
    created AS (
      INSERT INTO approvals (token_hash, organization_id, installation_id, capability_id, capability_version,
                             params_hash, reason, created_at, expires_at, params_ciphertext)
      SELECT $5::text, $7::uuid, $1::uuid, $2::text, $3::text, $4::text, $8::text, $6::timestamptz,
             $9::timestamptz, $10::bytea
       WHERE NOT EXISTS (SELECT 1 FROM renewed)
      RETURNING ${COLUMNS})
    SELECT *, false AS created FROM renewed UNION ALL SELECT *, true AS created FROM created`,
};
// Held until the transaction ends: two first invokes of the same run take turns.
const LOCK = { name: 'agw.approval.lock', text: 'SELECT pg_advisory_xact_lock(hashtext($1))' };
const FIND = {
  name: 'agw.approval.find',
  text: `SELECT ${COLUMNS} FROM approvals WHERE token_hash = $1 LIMIT 1`,
};
const CONSUME = {
  name: 'agw.approval.consume',
  text: `UPDATE approvals SET consumed_at = $2
          WHERE approval_id = $1 AND status = 'approved' AND consumed_at IS NULL`,
};

/**
 * The guard's ApprovalStore over the `approvals` table; `consume` is a compare-and-set. With `box`, a
 * new approval's params are stored encrypted (purpose `approval-params`) for the operator console.
 *
 * Dedupe: `renewPending` rebinds a still-pending approval of the same run to a fresh token, and
 * `create` itself does the same check under a transaction-scoped advisory lock keyed by the run
 * (installation, capability, version, params hash), so two first invokes racing each other (also from
 * two gateway processes) end with one approval: the second waits for the lock, then renews the first.
 * The lock's statement must come before the renew-or-create one, which then sees what the first
 * committed (each statement its own snapshot). `create` opens its transaction on the pool: the approval
 * guard runs before a run's transaction (src/meta-tools/invoke.ts), never inside one.
 *
 * With `notices` enabled (OPERATOR_EMAIL), a newly created approval (not a renewed one) is recorded as
 * an operator notice in the same transaction and announced after the commit.
 */
export function createKnexApprovalStore(
  knex: Knex,
  box?: SecretBox,
  notices?: OperatorNotices,
): ApprovalStore {
  const pool = sqlPoolOf(knex);
  // The run's unit of work, if it has one; the pool otherwise (the policy guard runs at admission).
  const sqlOf = (unit: unknown) => unitOf(unit)?.sql ?? pool;
  return {
    create: async (approval) => {
      let notice: NewNotice | undefined;
      // Two round trips: BEGIN + the lock; the renew-or-create + COMMIT (then the notice, if any).
      const record = await transactionOnPool(knex, async ({ sql, committing }) => {
        const run = `${approval.installation_id}:${approval.capability_id}:${approval.capability_version}:${approval.params_hash}`;
        await runStatement(sql, LOCK, [`agw.approval:${run}`]);
        const notify = notices?.enabled === true;
        const { rows } = await runStatement<ApprovalRow & { created: boolean }>(
          notify ? sql : committing,
          RENEW_OR_CREATE,
          [
            approval.installation_id,
            approval.capability_id,
            approval.capability_version,
            approval.params_hash,
            approval.token_hash,
            approval.created_at,
            approval.organization_id,
            approval.reason,
            approval.expires_at,
            box === undefined || approval.params === undefined
              ? null
              : box.encrypt('approval-params', JSON.stringify(approval.params)),
          ],
        );
        const row = rows[0] as ApprovalRow & { created: boolean };
        if (notices?.enabled && row.created) {
          notice = {
            kind: 'approval',
            subjectId: row.approval_id,
            summary: `${row.capability_id}@${row.capability_version}: ${row.reason}`,
          };
          await notices.record(sql, notice);
        }
        return toRecord(row);
      });
      if (notice !== undefined) await notices?.announce(notice);
      return record;
    },
    async findByTokenHash(tokenHash, unit) {
      const { rows } = await runStatement<ApprovalRow>(sqlOf(unit), FIND, [tokenHash]);
      return rows[0] === undefined ? undefined : toRecord(rows[0]);
    },
    // The fast path without a lock: the update's row lock serializes two renewals (the later token wins).
    async renewPending(match, tokenHash, now, unit) {
      const { rows } = await runStatement<ApprovalRow>(sqlOf(unit), RENEW, [
        match.installation_id,
        match.capability_id,
        match.capability_version,
        match.params_hash,
        tokenHash,
        now,
      ]);
      return rows[0] === undefined ? undefined : toRecord(rows[0]);
    },
    async consume(approvalId, consumedAt, unit) {
      const updated = await runStatement(sqlOf(unit), CONSUME, [approvalId, consumedAt]);
      return updated.rowCount === 1;
    },
  };
}
