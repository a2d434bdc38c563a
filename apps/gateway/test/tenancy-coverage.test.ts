// Tenancy is checked, not a convention: every table the handlers' runtime role can read (or update,
// delete, truncate; or insert into, when it has `organization_id`) — so every table a domain puts under
// `tenantRowLevelSecurity`, and every table with an `organization_id` it was granted — has row-level security enabled and a policy that applies to that
// role, forced where the role owns the table. Read from the catalog of the migrated database, on PGlite
// and, when DATABASE_URL is set, on PostgreSQL. A view it can read must run as the reader
// (security_invoker), since a view runs as its owner otherwise and bypasses its tables' policies.
// Every foreign key to the tenant (`organizations`, `installations`) is checked at COMMIT
// (`tenantKeysCheckedAtCommit` of @agw/capabilities says why), read from the same catalog; and such a key
// still refuses a row whose organization is missing, at COMMIT, leaving nothing behind.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../src/db/knex.js';
import { runMigrations } from '../src/db/migrate.js';
import { RUNTIME_ROLE } from '../src/db/tenant.js';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';

interface Reachable {
  readonly name: string;
  readonly kind: string;
  readonly tenant_column: boolean;
  readonly rls: boolean;
  readonly forced: boolean;
  readonly role_owns: boolean;
  readonly policies: number;
  readonly truncate: boolean;
  readonly security_invoker: boolean;
}

/** Every relation of the gateway's schema whose rows `role` may see or own, with its RLS facts. */
async function reachable(knex: Knex | Knex.Transaction, role: string): Promise<Reachable[]> {
  const { rows } = await knex.raw<{ rows: Reachable[] }>(
    `select * from (select c.relname as name, c.relkind as kind,
  exists (select 1 from pg_attribute a
    where a.attrelid = c.oid and a.attname = 'organization_id' and a.attnum > 0 and not a.attisdropped)
    as tenant_column,
  c.relrowsecurity as rls, c.relforcerowsecurity as forced,
  pg_has_role(r.oid, c.relowner, 'USAGE') as role_owns,
  (select count(*)::int from pg_policy p
    where p.polrelid = c.oid and (0 = any (p.polroles) or r.oid = any (p.polroles))) as policies,
  has_table_privilege(r.oid, c.oid, 'TRUNCATE') as truncate,
  coalesce('security_invoker=true' = any (c.reloptions), false) as security_invoker,
  has_any_column_privilege(r.oid, c.oid, 'SELECT, UPDATE') or has_table_privilege(r.oid, c.oid, 'DELETE, TRUNCATE')
    as reads,
  has_any_column_privilege(r.oid, c.oid, 'INSERT') as inserts
from pg_class c
join pg_namespace n on n.oid = c.relnamespace
cross join pg_roles r
where r.rolname = ? and n.nspname = current_schema() and c.relkind in ('r', 'p', 'v', 'm', 'f')) relation
-- Insert-only without organization_id (the mail outbox) shows the role no row and owns no tenant's.
where reads or (inserts and tenant_column)
order by name`,
    [role],
  );
  return rows;
}

/** What is wrong with one reachable relation's tenancy, or undefined when it is covered. */
function gap(table: Reachable): string | undefined {
  const what = table.tenant_column ? 'has organization_id and' : 'has no organization_id and';
  if (table.kind === 'v') {
    return table.security_invoker
      ? undefined
      : `view ${table.name} ${what} runs as its owner (no security_invoker)`;
  }
  if (table.kind === 'm' || table.kind === 'f')
    return `${table.name} ${what} cannot carry row-level security`;
  if (!table.rls) return `${table.name} ${what} row-level security is not enabled`;
  if (table.policies === 0) return `${table.name} ${what} no policy applies to ${RUNTIME_ROLE}`;
  if (table.role_owns && !table.forced) return `${table.name} is owned by ${RUNTIME_ROLE} without FORCE`;
  // TRUNCATE is not subject to row-level security: it would empty every organization's rows.
  if (table.truncate) return `${table.name}: ${RUNTIME_ROLE} may TRUNCATE it, past every policy`;
  return undefined;
}

const gaps = (tables: readonly Reachable[]) => tables.map(gap).filter((found) => found !== undefined);

interface TenantKey {
  readonly name: string;
  readonly deferrable: boolean;
  readonly deferred: boolean;
}

/** Every foreign key of the schema to `organizations` or `installations`, as "table.constraint". */
async function tenantKeys(knex: Knex | Knex.Transaction): Promise<TenantKey[]> {
  const { rows } = await knex.raw<{ rows: TenantKey[] }>(
    `select c.conrelid::regclass::text || '.' || c.conname as name, c.condeferrable as deferrable,
            c.condeferred as deferred
       from pg_constraint c
      where c.contype = 'f' and c.connamespace = current_schema()::regnamespace
        and c.confrelid in ('organizations'::regclass, 'installations'::regclass)
      order by name`,
  );
  return rows;
}

/** The keys among `keys` checked at each insert rather than at COMMIT. */
const immediate = (keys: readonly TenantKey[]) =>
  keys.filter((key) => !key.deferrable || !key.deferred).map((key) => key.name);

let environment: TestEnvironment;
let database: Database;

beforeAll(async () => {
  environment = await createTestEnvironment();
  database = openDatabase({ databaseUrl: environment.env.DATABASE_URL, dataDir: environment.dataDir });
  await runMigrations(database.knex);
});

afterAll(async () => {
  await database?.knex.destroy();
  await environment?.cleanup();
});

describe(`row-level security covers the runtime role (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('the runtime role is no superuser and does not bypass row-level security', async () => {
    const { rows } = await database.knex.raw<{ rows: { rolsuper: boolean; rolbypassrls: boolean }[] }>(
      'select rolsuper, rolbypassrls from pg_roles where rolname = ?',
      [RUNTIME_ROLE],
    );
    expect(rows).toEqual([{ rolsuper: false, rolbypassrls: false }]);
  });

  it('every table the runtime role can reach is under row-level security with a policy for it', async () => {
    const tables = await reachable(database.knex, RUNTIME_ROLE);
    // The gateway's tables handlers read (their organization, the wallet) and every domain table.
    expect(tables.map((table) => table.name)).toEqual(
      expect.arrayContaining(['organizations', 'wallets', 'calendar_bookings', 'billing_documents']),
    );
    expect(tables.filter((table) => table.tenant_column).length).toBeGreaterThan(20);
    expect(gaps(tables)).toEqual([]);
  });

  // The check itself: a table a new migration forgets to protect is named (in a transaction rolled back).
  it.each([
    [
      'granted without row-level security',
      'grant select on agw_unprotected to agw_runtime',
      'row-level security is not enabled',
    ],
    [
      'with row-level security but no policy',
      'grant select, insert on agw_unprotected to agw_runtime; alter table agw_unprotected enable row level security',
      'no policy applies to agw_runtime',
    ],
    [
      'owned by the runtime role without FORCE',
      `alter table agw_unprotected enable row level security;
create policy agw_unprotected_tenant on agw_unprotected to agw_runtime using (organization_id = agw_current_organization());
alter table agw_unprotected owner to agw_runtime`,
      'owned by agw_runtime without FORCE',
    ],
    [
      'under a policy but truncatable',
      `grant select, truncate on agw_unprotected to agw_runtime; alter table agw_unprotected enable row level security;
create policy agw_unprotected_tenant on agw_unprotected to agw_runtime using (organization_id = agw_current_organization())`,
      'may TRUNCATE it',
    ],
  ])('names a table %s', async (_case, setup, expected) => {
    const found = await database.knex
      .transaction(async (trx) => {
        await trx.raw('create table agw_unprotected (id uuid primary key, organization_id uuid not null)');
        for (const statement of setup.split(/;\n?/)) await trx.raw(statement);
        const tables = await reachable(trx, RUNTIME_ROLE);
        throw Object.assign(new Error('rollback'), { found: gaps(tables) });
      })
      .catch((error: { found?: string[] }) => {
        if (error.found === undefined) throw error;
        return error.found;
      });
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('agw_unprotected');
    expect(found[0]).toContain(expected);
  });
});

describe(`keys to the tenant are checked at commit (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('every foreign key to organizations or installations is deferrable and initially deferred', async () => {
    const keys = await tenantKeys(database.knex);
    // The gateway's (the charge every paid invoke writes) and the domains' (documents, billing, calendar).
    expect(keys.map((key) => key.name)).toEqual(
      expect.arrayContaining([
        'wallet_ledger.wallet_ledger_organization_id_foreign',
        'documents.documents_organization_id_foreign',
        'documents.documents_installation_id_foreign',
        'billing_documents.billing_documents_organization_id_fkey',
        'calendar_bookings.calendar_bookings_organization_id_fkey',
      ]),
    );
    expect(keys.length).toBeGreaterThan(35);
    expect(immediate(keys)).toEqual([]);
  });

  it('names a new table whose key to the tenant is checked at each insert', async () => {
    const found = await database.knex
      .transaction(async (trx) => {
        await trx.raw(
          'create table agw_immediate (id uuid primary key, organization_id uuid not null references organizations (id))',
        );
        const found = immediate(await tenantKeys(trx));
        throw Object.assign(new Error('rollback'), { found });
      })
      .catch((error: { found?: string[] }) => error.found);
    expect(found).toEqual(['agw_immediate.agw_immediate_organization_id_fkey']);
  });

  it('a charge for an organization that does not exist fails at COMMIT and leaves nothing', async () => {
    const scope = `tenant-keys-test:${randomUUID()}`;
    const missing = randomUUID();
    let inserted = false;
    const outcome = await database.knex
      .transaction(async (trx) => {
        // The insert itself passes: the key is checked when the transaction commits.
        await trx.raw(
          `insert into wallet_ledger (organization_id, amount, kind, idempotency_scope) values (?, 1, 'charge', ?)`,
          [missing, scope],
        );
        inserted = true;
        return 'committed';
      })
      .catch((error: { code?: string; message?: string }) => `${error.code}: ${error.message}`);
    expect(inserted).toBe(true);
    expect(outcome).toMatch(/^23503: .*wallet_ledger_organization_id_foreign/);
    const { rows } = await database.knex.raw<{ rows: unknown[] }>(
      'select 1 from wallet_ledger where idempotency_scope = ?',
      [scope],
    );
    expect(rows).toEqual([]);
  });
});
