import type {
  CapabilityHandler,
  CapabilityPreflight,
  CapabilityViolation,
  PreflightContext,
  Sql,
} from '@agw/capabilities';
import type { DenyDecision, Principal } from '@agw/guard';
import type { Knex } from 'knex';
import { sqlPoolOf } from '../db/pool.js';
import { enterTenantText } from '../db/tenant.js';
import { readWalletSnapshot } from '../ports/wallet-store.js';
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
  const enter = ['begin transaction read only', enterTenantText(organizationId)];
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
 * The refusal invoke answers for a preflight's violations, as the handler would have answered them:
 * the first violation's code (default `validation_failed`), message and hint, its pointer as the
 * envelope's `schema_pointer` and every violation of that code in `details[]`.
 */
export function preflightDenial(violations: readonly CapabilityViolation[]): DenyDecision | undefined {
  const [first] = violations;
  if (first === undefined) return undefined;
  const code = first.code ?? 'validation_failed';
  const details = violations.filter((violation) => (violation.code ?? 'validation_failed') === code);
  return {
    outcome: 'deny',
    code,
    message: code === 'validation_failed' ? `${first.schema_pointer} ${first.message}` : first.message,
    hint: first.hint ?? BUSINESS_RULE_HINT,
    schemaPointer: first.schema_pointer,
    details: details.map((violation) => ({ ...violation })),
    ...(first.retry_after_seconds === undefined ? {} : { retryAfterSeconds: first.retry_after_seconds }),
  };
}

/** The hint of a handler's own refusal that names none: its params are well-formed, a rule refused them. */
export const BUSINESS_RULE_HINT =
  'The params match the schema but a rule of the capability refuses them; see details[] for each violation and its JSON Pointer, and dry_run the corrected call before invoking it.';
