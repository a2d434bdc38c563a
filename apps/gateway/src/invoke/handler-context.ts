import { randomUUID } from 'node:crypto';
import type { CapabilityContext, CapabilityHandler, IdGenerator, MailPort, Sql } from '@agw/capabilities';
import type { Principal } from '@agw/guard';
import { runAsTenant, runAsTenantUnsaved, runInTenantSavepoint } from '../db/tenant.js';
import { runAsTenantRead } from '../db/tenant-read.js';
import { type TransactionMail, transactionMail } from '../mail/domain-mail.js';
import type { InvokeRuntime } from './runtime.js';

const ids: IdGenerator = { uuid: randomUUID };

/** One handler run: who calls, with what, and whether its writes need a savepoint. */
export interface HandlerCall {
  readonly handler: CapabilityHandler<never>;
  readonly params: unknown;
  readonly principal: Principal;
  /** The hosts the contract declares (already allow-listed by the egress guard). */
  readonly egressHosts: readonly string[];
  readonly mutating: boolean;
}

/**
 * Runs a handler with its context: `ctx.sql` on the invoke's transaction (the executor's current one),
 * as the runtime role with the caller's organization set (src/db/tenant.ts), so row-level security
 * holds whatever the handler's SQL says.
 *
 * - Inside a mutating invoke's own transaction (src/idempotency/run-sql.ts): no savepoint, the tenant
 *   rides with the handler's first statement; a failure rolls the whole transaction back and the
 *   runner records it afterwards. The runner resets the role ahead of its answer statement.
 * - Inside a transaction whose ports write (a job's run: src/ports/executor.ts `transact`): a
 *   mutating handler runs in a savepoint (its writes roll back on failure while the failure's audit
 *   record still commits); the role is reset afterwards so the chain's charge and audit rows are written by the gateway's role.
 *   A read has nothing to undo and runs without a savepoint (a read whose own SQL fails aborts the
 *   transaction and answers 500).
 * - A read, free or paid, has no transaction of the invoke's (a free read's audit rows are
 *   group-committed on the pool, a paid read's written with its charge afterwards: src/invoke/paid-read.ts):
 *   each of its handler's statements borrows a pooled connection and carries the tenant's role in a
 *   transaction of its own (src/db/tenant-read.ts), so no connection — on PGlite the one session — is
 *   held while the handler works without SQL (a document rendering in the worker pool).
 */
export async function callHandler(runtime: InvokeRuntime, call: HandlerCall): Promise<unknown> {
  const { executor } = runtime;
  const organizationId = call.principal.organization_id;
  const run = new RunSignal();
  let mail: TransactionMail | undefined;
  const handle = (sql: Sql) => {
    mail = runtime.mail ? transactionMail(sql, runtime.mail) : undefined;
    return call.handler.handle(call.params as never, context(runtime, call, sql, mail, run));
  };
  try {
    const open = executor.open();
    if (open !== undefined) {
      // The mutating invoke's own transaction: a failure rolls it back whole, so no savepoint.
      open.afterCommit(() => mail?.dispatch());
      return await runAsTenantUnsaved(open.sql, organizationId, handle);
    }
    const transaction = executor.transaction();
    if (transaction === undefined) {
      const value = await runAsTenantRead(runtime.knex, organizationId, (sql) =>
        executor.withinSql(sql, () => handle(sql)),
      );
      mail?.dispatch();
      return value;
    }
    // Staged mail goes out once the run's transaction commits (a rollback means it never existed).
    transaction.afterCommit(() => mail?.dispatch());
    if (!call.mutating) return await runAsTenant(transaction.sql, organizationId, handle);
    return await runInTenantSavepoint(transaction.sql, organizationId, handle);
  } finally {
    // Whatever the handler left running (a fetch, a timer) learns that its run is over.
    run.end();
  }
}

/**
 * The handler's abort signal, made only when the handler reads it: aborting builds a DOMException with
 * its stack, about 7 µs of every invoke, while most handlers never look at the signal.
 */
class RunSignal {
  #controller: AbortController | undefined;
  #ended = false;

  get signal(): AbortSignal {
    if (this.#ended) return AbortSignal.abort();
    this.#controller ??= new AbortController();
    return this.#controller.signal;
  }

  end(): void {
    this.#ended = true;
    this.#controller?.abort();
  }
}

const noMail: MailPort = {
  stage: () => Promise.reject(new Error('This gateway was composed without a mail outbox.')),
};

function context(
  runtime: InvokeRuntime,
  call: HandlerCall,
  sql: Sql,
  mail: TransactionMail | undefined,
  run: RunSignal,
): CapabilityContext {
  return {
    organizationId: call.principal.organization_id,
    installationId: call.principal.installation_id,
    now: runtime.clock.now(),
    sql,
    ids,
    get signal() {
      return run.signal;
    },
    // The gateway's wallet store reads through the executor, i.e. on this same connection, as the
    // runtime role: the runtime-role migration lets it read its own organization's wallet rows.
    wallet: runtime.wallet as never,
    fetch: runtime.fetchFor(call.egressHosts),
    mail: mail?.port ?? noMail,
  };
}
