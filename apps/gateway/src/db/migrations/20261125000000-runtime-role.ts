import type { Knex } from 'knex';

/**
 * The runtime role handler SQL runs as (`src/db/tenant.ts`), and what it may read of the gateway's own
 * tables; the domains' migrations grant it their tables under row-level security.
 *
 * `agw_runtime` is NOLOGIN: nobody connects as it; the gateway's own connection switches to it per
 * transaction (`SET LOCAL ROLE`), which needs that connection's user to be a member of it. Creating it
 * needs CREATEROLE (or a superuser): the embedded default and the tests connect as a superuser, managed
 * PostgreSQL services give their admin user CREATEROLE. Without it the migration fails with a message
 * saying what to run as an administrator; a gateway never runs handlers without the role, because a
 * handler without row-level security could read another organization's rows. Roles are cluster-wide:
 * several databases on one server share the role, so creating it tolerates a concurrent creator.
 *
 * `agw_current_organization()` is the tenant every policy compares with: NULL (no row) when no tenant
 * is set, rather than an error, because a setting reset at the end of a transaction reads back as ''.
 * The runtime role reads its own organization's row (the columns `core.org.current.get` answers) and the
 * wallet tables `ctx.wallet` reads, each under a policy for that role alone. The gateway's own role
 * owns the tables and is not subject to these policies.
 */
export const createRuntimeRole = {
  name: '20261125000000_runtime_role',
  async up(knex: Knex): Promise<void> {
    await knex.raw(`do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'agw_runtime') then
    begin
      create role agw_runtime nologin;
    exception
      when duplicate_object or unique_violation then null;
      when insufficient_privilege then
        raise exception 'agent gateway: cannot create the database role agw_runtime'
          using hint = format('Give %I the CREATEROLE privilege, or as an administrator run: '
            'CREATE ROLE agw_runtime NOLOGIN; GRANT agw_runtime TO %I; then start the gateway again.',
            current_user, current_user);
    end;
  end if;
  if not pg_has_role(current_user, 'agw_runtime', 'MEMBER') then
    execute format('grant agw_runtime to %I', current_user);
  end if;
  execute format('grant usage on schema %I to agw_runtime', current_schema());
end $$`);
    await knex.raw(`create or replace function agw_current_organization() returns uuid
language sql stable as $$ select nullif(current_setting('agw.organization_id', true), '')::uuid $$`);
    await knex.raw(
      'grant select (id, name, short_id, is_active, created_at, updated_at) on organizations to agw_runtime',
    );
    await knex.raw('alter table organizations enable row level security');
    await knex.raw(`create policy organizations_runtime on organizations for select to agw_runtime
  using (id = agw_current_organization())`);
    for (const table of WALLET_TABLES) {
      await knex.raw(`grant select on ${table} to agw_runtime`);
      await knex.raw(`alter table ${table} enable row level security`);
      await knex.raw(`create policy ${table}_runtime on ${table} for select to agw_runtime
  using (organization_id = agw_current_organization())`);
    }
  },
  async down(knex: Knex): Promise<void> {
    for (const table of [...WALLET_TABLES, 'organizations']) {
      await knex.raw(`drop policy ${table}_runtime on ${table}`);
      await knex.raw(`alter table ${table} disable row level security`);
      await knex.raw(`revoke all on ${table} from agw_runtime`);
    }
    await knex.raw('drop function agw_current_organization()');
    // The role stays: other databases on the server may use it.
  },
};

// What `readWalletSnapshot` reads (the handler context's wallet port runs on the handler's connection).
const WALLET_TABLES = ['wallets', 'policy_profiles', 'wallet_spend', 'wallet_ledger'] as const;
