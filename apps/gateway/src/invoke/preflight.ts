import type { CapabilityHandler, CapabilityPreflight, PreflightContext, Sql } from '@agw/capabilities';
import type { DenyDecision, Principal } from '@agw/guard';
import type { Knex } from 'knex';
import { sqlPoolOf } from '../db/pool.js';
import { enterTenantStatement } from '../db/tenant.js';
import { readWalletSnapshot } from '../ports/wallet-store.js';
import { capabilityDenial } from './refusal.js';
import type { InvokeRuntime } from './runtime.js';

const NOTHING: CapabilityPreflight = { violations: [] };

/**
 * Runs `work` as `organizationId`'s runtime role (row-level security as for a handler) in a READ ONLY
 * transaction on a pooled connection, and rolls it back whatever `work` did: PostgreSQL itself refuses
 * every write, `SELECT … FOR UPDATE` and `nextval` (a document number) in it, on PGlite as on a server,
 * so a preflight cannot leave a trace even by mistake. BEGIN and the tenant go out with the first
 * statement; a preflight that sends none costs no round trip. A statement `work` did not await is
 * refused once it returned (the pool's lent port).
 */
export function runReadOnlyRolledBack<T>(
  knex: Knex,
  organizationId: string,
  work: (sql: Sql) => Promise<T>,
): Promise<T> {
  const enter = ['begin transaction read only', enterTenantStatement(organizationId)];
  return sqlPoolOf(knex).connection(async (connection, dispose) => {
    let begun = false;
    const sql: Sql = {
      query(text, params, options) {
        if (begun) return connection.query(text, params, options);
        // Set before the first await: a statement sent meanwhile queues behind the one carrying BEGIN.
        begun = true;
        return connection.queryAfter(enter, text, params, options);
      },
    };
    try {
      return await work(sql);
    } finally {
      // A connection whose ROLLBACK failed is in an unknown state: the pool closes it.
      if (begun) await connection.exec('rollback').catch(dispose);
    }
  });
}

/**
 * The handler's own checks of `params` for `principal`, without effect: its port-free `check`, then its
 * `preflight` in a read-only transaction that is rolled back ({@link runReadOnlyRolledBack}). A handler
 * without either finds nothing. Used by dry_run (violations and preview) and by invoke before an
 * approval is asked (src/meta-tools/invoke.ts).
 */
export async function runPreflight(
  runtime: Pick<InvokeRuntime, 'knex' | 'clock'>,
  handler: CapabilityHandler<never> | undefined,
  params: unknown,
  principal: Pick<Principal, 'organization_id' | 'installation_id'>,
): Promise<CapabilityPreflight> {
  const checked = (await handler?.check?.(params as never)) ?? [];
  if (checked.length > 0) return { violations: checked };
  const preflight = handler?.preflight;
  if (preflight === undefined) return NOTHING;
  const organizationId = principal.organization_id;
  return runReadOnlyRolledBack(runtime.knex, organizationId, (sql) => {
    const ctx: PreflightContext = {
      organizationId,
      installationId: principal.installation_id,
      now: runtime.clock.now(),
      sql,
      wallet: { getSnapshot: (org, now) => readWalletSnapshot(sql, org, now) },
    };
    return preflight.call(handler, params as never, ctx);
  });
}

/**
 * The refusal invoke answers for a preflight, the one `handle` would have answered: the error its rules
 * threw ({@link CapabilityPreflight.refusal}) through the same mapping; violations listed without one
 * (a `check`) as one error of the first violation's code, holding every violation of that code.
 */
export function preflightDenial({ violations, refusal }: CapabilityPreflight): DenyDecision | undefined {
  if (refusal !== undefined) return capabilityDenial(refusal);
  const [first] = violations;
  if (first === undefined) return undefined;
  const code = first.code ?? 'validation_failed';
  return capabilityDenial({
    code,
    message: code === 'validation_failed' ? `${first.schema_pointer} ${first.message}` : first.message,
    violations: violations.filter((violation) => (violation.code ?? 'validation_failed') === code),
    retryAfterSeconds: first.retry_after_seconds,
  });
}
