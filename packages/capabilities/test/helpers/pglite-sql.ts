import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { capabilityMigrations, type DomainMail, type MailPort, type Sql } from '../../src/index.js';

/**
 * A real database for handler tests: an in-memory PGlite with the two gateway tables the domains
 * reference (reduced to what a handler reads), the runtime role and its tenant function as the gateway
 * creates them, and every domain's migrations applied in order. `sql` is the port a handler gets,
 * minus the role switch (these tests are about the handlers' SQL, not about row-level security).
 */
export interface TestDatabase {
  readonly db: PGlite;
  readonly sql: Sql;
  /** Inserts an organization and an installation of it. */
  seed(organizationId: string, installationId: string, name?: string): Promise<void>;
}

// The migrated database as PGlite dumps it, taken by a file's first createTestDatabase (0.5 s): a later
// one restores it, skipping initdb and the migrations, about 1.7 s of the 3 s a fresh one takes.
let migratedDump: Promise<Blob> | undefined;

async function migratedDatabase(): Promise<PGlite> {
  const db = new PGlite({ extensions: { btree_gist } });
  await db.exec(`
create role agw_runtime nologin;
create function agw_current_organization() returns uuid language sql stable
  as $$ select nullif(current_setting('agw.organization_id', true), '')::uuid $$;
create table organizations (
  id uuid primary key, name text not null, short_id text not null, is_active boolean not null default true,
  created_at timestamptz not null default now(), updated_at timestamptz not null default now());
create table installations (id uuid primary key, organization_id uuid not null references organizations(id));`);
  const ordered = [...capabilityMigrations].sort((a, b) => a.name.localeCompare(b.name));
  for (const migration of ordered) for (const statement of migration.up) await db.query(statement);
  return db;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  let db: PGlite;
  if (migratedDump) {
    db = new PGlite({ loadDataDir: await migratedDump, extensions: { btree_gist } });
  } else {
    db = await migratedDatabase();
    migratedDump = db.dumpDataDir('none');
    await migratedDump;
  }
  const sql: Sql = {
    async query<Row>(text: string, params: readonly unknown[] = []) {
      const result = await db.query<Row>(text, params as unknown[]);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    },
  };
  return {
    db,
    sql,
    async seed(organizationId, installationId, name = 'Acme') {
      await db.query(
        `insert into organizations (id, name, short_id, created_at, updated_at)
         values ($1, $2, 'ACME2345', '2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z')`,
        [organizationId, name],
      );
      await db.query('insert into installations (id, organization_id) values ($1, $2)', [
        installationId,
        organizationId,
      ]);
    },
  };
}

/** A mail port that keeps what a handler staged, in order (the gateway's outbox is not part of these tests). */
export function recordingMail(): MailPort & { readonly staged: DomainMail[] } {
  const staged: DomainMail[] = [];
  return {
    staged,
    async stage(mail) {
      staged.push(mail);
      return `mail-${staged.length}`;
    },
  };
}
