import type { Sql, SqlResult } from '@agw/capabilities';
import type { PGlite } from '@electric-sql/pglite';
import type { Knex } from 'knex';
import pg from 'pg';
import { transactionOnKnexPool } from './sql-knex.js';
import { beginAsTenant, RUNTIME_ROLE } from './tenant.js';

// The tenant of one statement: role and organization local to the transaction (`true`), which for a
// statement sent in the same extended-protocol batch (one Sync) is the batch's implicit transaction.
const ENTER_TEXT = `select set_config('role', '${RUNTIME_ROLE}', true), set_config('agw.organization_id', $1, true)`;

type PgConnection = pg.Connection & {
  parse(query: { text: string; name?: string; types?: number[] }): void;
  bind(config: { portal?: string; statement?: string; values?: unknown[]; valueMapper?: unknown }): void;
  describe(message: { type: 'P' | 'S'; name?: string }): void;
  execute(config: { portal?: string; rows?: number }): void;
};

// `pg`'s own mapping of JS values to parameters (Buffer, Date, arrays, JSON), as its Query uses it.
const prepareValue = (pg as unknown as { utils: { prepareValue: unknown } }).utils.prepareValue;

/**
 * A `pg` query preceded, in the same write and the same Sync, by the tenant's `set_config`: PostgreSQL
 * runs every statement between two Syncs as one implicit transaction (committed at the Sync unless an
 * explicit BEGIN opened a block), so the role and the organization hold for exactly this statement and
 * are gone when its answer arrives. Its results are the tenant row and then the statement's: the
 * caller keeps the last. The tenant statement is parsed unnamed each time (a few bytes; a named one
 * would need bookkeeping in `pg`'s per-connection statement cache, which tracks one name per query).
 */
class TenantQuery extends pg.Query {
  constructor(
    private readonly organizationId: string,
    config: pg.QueryConfig,
    callback: (error: Error | null, results: unknown) => void,
  ) {
    super({ ...config, queryMode: 'extended' } as pg.QueryConfig, undefined, callback as never);
  }

  prepare(connection: PgConnection): void {
    connection.parse({ text: ENTER_TEXT, name: '', types: [] });
    connection.bind({ portal: '', statement: '', values: [this.organizationId], valueMapper: prepareValue });
    connection.describe({ type: 'P', name: '' });
    connection.execute({ portal: '', rows: 0 });
    (pg.Query.prototype as unknown as { prepare(connection: PgConnection): void }).prepare.call(
      this,
      connection,
    );
  }
}

/** The SQL port on one `pg` connection where every statement runs as `organizationId`'s runtime role. */
function pgTenantSql(client: pg.ClientBase, organizationId: string): Sql {
  return {
    query<Row>(text: string, params: readonly unknown[] = [], options: { name?: string } = {}) {
      const config: pg.QueryConfig = { text, values: params as unknown[] };
      if (options.name !== undefined) config.name = options.name;
      return new Promise<SqlResult<Row>>((resolve, reject) => {
        const query = new TenantQuery(organizationId, config, (error, results) => {
          if (error) return reject(error);
          const last = (results as pg.QueryResult[]).at(-1) as pg.QueryResult;
          resolve({ rows: last.rows as Row[], rowCount: last.rowCount ?? last.rows.length });
        });
        client.query(query as unknown as pg.QueryConfig);
      });
    },
  };
}

/**
 * Runs a free read's handler as `organizationId`'s runtime role on one pooled connection.
 *
 * On PostgreSQL without BEGIN or COMMIT: each of the handler's statements travels with the tenant's
 * `set_config` in one round trip and one implicit transaction (see {@link TenantQuery}), so a
 * one-statement read is one round trip, where an explicit transaction takes three. Row-level security
 * holds for each statement all the same. What a transaction would add for a read is nothing under READ
 * COMMITTED: every statement takes its own snapshot there anyway.
 *
 * On PGlite (`transactionOnKnexPool`): `begin; select set_config(…)`, the statements, `commit` — calls
 * into the same process, where a round trip costs no socket write.
 */
export async function runAsTenantRead<T>(
  knex: Knex,
  organizationId: string,
  work: (sql: Sql) => Promise<T>,
): Promise<T> {
  // Checked here for both engines (beginAsTenant throws on anything but a UUID).
  const opening = beginAsTenant(organizationId);
  // knex-pglite's client holds its PGlite instance (src/db/knex.ts); knex's pg client has none.
  if ((knex.client as { pglite?: PGlite }).pglite !== undefined) {
    return transactionOnKnexPool(knex, opening, work);
  }
  const connection = (await knex.client.acquireConnection()) as pg.ClientBase;
  try {
    return await work(pgTenantSql(connection, organizationId));
  } finally {
    await knex.client.releaseConnection(connection);
  }
}
