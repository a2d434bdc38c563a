import { describe, expect, it } from 'vitest';
import { allMigrations } from '../src/db/migrate.js';

// What deployments have recorded in agw_migrations before the domains owned their migrations: knex
// refuses to run when a recorded name is missing from the source, and order must not change under them.
const PUBLISHED = [
  '20261122000000_create_audit_events',
  '20261122010000_create_onboarding',
  '20261122020000_create_wallets',
  '20261123010000_create_documents',
  '20261123020000_audit_chain',
  '20261123030000_create_invoke_jobs',
  '20261123040000_create_wallet_spend',
  '20261124010000_index_finished_invoke_jobs',
];

describe('one migration source for the gateway and the domains', () => {
  it('keeps every published name, in the published order, before anything added since', () => {
    const names = allMigrations().map((migration) => migration.name);
    expect(names.slice(0, PUBLISHED.length)).toEqual(PUBLISHED);
    expect(names).toContain('20261125000000_runtime_role');
    // The role exists before any domain's row-level security grants it a table.
    expect(names.indexOf('20261125000000_runtime_role')).toBeLessThan(
      names.indexOf('20261125010000_documents_row_level_security'),
    );
    expect([...names].sort()).toEqual(names);
  });

  it('refuses two migrations of one name', () => {
    const twin = { name: '20261122000000_create_audit_events', up: [], down: [] };
    expect(() => allMigrations([twin])).toThrow(
      /Two migrations are named 20261122000000_create_audit_events/,
    );
  });
});
