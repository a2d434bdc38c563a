import { rollUpCharges } from '@agw/gateway';
import type { Knex } from 'knex';

/**
 * What a rejected request may legitimately write: the audit log (every decision is recorded), the
 * idempotency bookkeeping (a refusal can be stored for replay) and the migrations ledger (never
 * written after start). Everything else must stay byte-for-byte the same.
 */
const EXCLUDED_TABLES = new Set([
  'audit_events',
  'audit_chain',
  'audit_unsealed',
  'audit_seal_mark',
  'idempotency_keys',
  'knex_migrations',
  'knex_migrations_lock',
  'agw_migrations',
  'agw_migrations_lock',
]);
/**
 * Columns a refused request legitimately moves: a wrong code counts against the code's attempt budget
 * (`otp_codes.attempts`, brute-force protection), and a request that authenticated an operator key
 * but failed later stamps `api_keys.last_used_at`.
 */
const EXCLUDED_COLUMNS = ['attempts', 'last_used_at'];

/** Row count and an MD5 over the sorted rows (as JSON, volatile columns removed) of every table. */
export type DbFingerprint = Record<string, { rows: number; md5: string }>;

/** Builds a function that fingerprints every table but the excluded ones in one round trip. */
export async function createFingerprinter(knex: Knex): Promise<() => Promise<DbFingerprint>> {
  const tables = ((await knex('pg_tables').where({ schemaname: 'public' }).pluck('tablename')) as string[])
    .filter((name) => !EXCLUDED_TABLES.has(name) && !name.includes('migration'))
    .sort();
  const columns = `array[${EXCLUDED_COLUMNS.map((name) => `'${name}'`).join(',')}]::text[]`;
  const sql = tables
    .map(
      (table) =>
        `select '${table}' as t, count(*)::int as n, coalesce(md5(string_agg(r, '|' order by r)), '') as h ` +
        `from (select (to_jsonb(x) - ${columns})::text as r from "${table}" x) s`,
    )
    .join(' union all ');
  return async () => {
    const result = (await knex.raw(sql)) as { rows: Array<{ t: string; n: number; h: string }> };
    const fingerprint: DbFingerprint = {};
    for (const row of result.rows) fingerprint[row.t] = { rows: Number(row.n), md5: row.h };
    return fingerprint;
  };
}

/** The tables whose fingerprint differs. */
export function changedTables(before: DbFingerprint, after: DbFingerprint): string[] {
  return Object.keys({ ...before, ...after }).filter(
    (table) => before[table]?.rows !== after[table]?.rows || before[table]?.md5 !== after[table]?.md5,
  );
}

/**
 * Finishes what accepted requests left to background workers, which would otherwise look like a change
 * by the next request: waits (bounded) until the mail outbox has delivered what an onboarding call
 * queued, and folds their charges into the balances and spend buckets (the roll-up every gateway process
 * runs each second; with nothing left to fold, it changes nothing while rejected requests run).
 */
export async function settleBackgroundWork(knex: Knex, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const queued = await knex('mail_outbox').where({ status: 'queued' }).first();
    if (queued === undefined) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await rollUpCharges(knex);
}
