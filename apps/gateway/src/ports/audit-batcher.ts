import type { Sql } from '@agw/capabilities';
import type { Knex } from 'knex';
import { sqlPoolOf } from '../db/pool.js';
import { type AuditRow, insertAuditRows } from './audit-rows.js';

export type { AuditRow } from './audit-rows.js';

/** Writes audit rows that are not part of a transaction, several requests' rows per INSERT. */
export interface AuditBatcher {
  /** Resolves once `rows` are committed (each caller answers only after its own rows are durable). */
  write(rows: readonly AuditRow[]): Promise<void>;
}

interface Waiting {
  readonly rows: readonly AuditRow[];
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

// One batcher per database pool: every writer of audit rows outside a transaction shares its INSERTs.
const shared = new WeakMap<Knex, AuditBatcher>();

/** The batcher of the pool `knex` (its statements on the SQL port over knex's pool), created on first use. */
export function auditBatcherFor(knex: Knex): AuditBatcher {
  let batcher = shared.get(knex);
  if (batcher === undefined) {
    batcher = createAuditBatcher(sqlPoolOf(knex));
    shared.set(knex, batcher);
  }
  return batcher;
}

/**
 * Group commit for the audit rows of refusals and free reads, which run on the pool: while one INSERT is
 * in flight, the rows of every other request queue up and go in the next INSERT, together. No timer:
 * a lone request is written at once; under load one round trip carries many requests' rows (a
 * PostgreSQL round trip is the dominant cost of a read invoke). A batch that fails is retried entry by
 * entry, so one bad row fails only its own request.
 */
export function createAuditBatcher(sql: Sql, options: { maxRows?: number } = {}): AuditBatcher {
  const maxRows = options.maxRows ?? 500;
  let queue: Waiting[] = [];
  let flushing = false;

  // One statement a batch, its rows as one JSON parameter (see src/ports/audit-rows.ts).
  const insert = (rows: readonly AuditRow[]) => insertAuditRows(sql, rows);

  async function flush(): Promise<void> {
    flushing = true;
    while (queue.length > 0) {
      let count = 0;
      let taken = 0;
      while (taken < queue.length && (taken === 0 || count + (queue[taken]?.rows.length ?? 0) <= maxRows)) {
        count += queue[taken]?.rows.length ?? 0;
        taken += 1;
      }
      const batch = queue.slice(0, taken);
      queue = queue.slice(taken);
      try {
        await insert(batch.flatMap((entry) => entry.rows));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        if (batch.length === 1) {
          batch[0]?.reject(error);
          continue;
        }
        await Promise.all(batch.map((entry) => insert(entry.rows).then(entry.resolve, entry.reject)));
      }
    }
    flushing = false;
  }

  return {
    write(rows) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ rows, resolve, reject });
        if (!flushing) void flush();
      });
    },
  };
}
