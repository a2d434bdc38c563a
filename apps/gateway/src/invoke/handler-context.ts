import { randomUUID } from 'node:crypto';
import type { CapabilityContext, CapabilityHandler, IdGenerator, MailPort, Sql } from '@agw/capabilities';
import type { Principal } from '@agw/guard';
import { type TransactionMail, transactionMail } from '../mail/domain-mail.js';
import { readWalletSnapshot } from '../ports/wallet-store.js';
import type { InvokeRuntime } from './runtime.js';
import type { UnitOfWork } from './unit-of-work.js';

const ids: IdGenerator = { uuid: randomUUID };

/** One handler run: who calls, with what, and whether its writes need a savepoint. */
export interface HandlerCall {
  readonly handler: CapabilityHandler<never>;
  readonly params: unknown;
  readonly principal: Principal;
  /** The hosts the contract declares (already allow-listed by the egress guard). */
  readonly egressHosts: readonly string[];
  readonly mutating: boolean;
  /** The chain's report of a cost below the estimate (billing charges it instead). */
  readonly reportCost?: (credits: string) => void;
}

/**
 * Runs a handler with its context in the run's unit of work: `ctx.sql` is the unit's connection for
 * handlers as the runtime role with the caller's organization set (src/db/tenant.ts), so row-level
 * security holds whatever the handler's SQL says. How — a statement at a time for a read, in the
 * mutating invoke's transaction, in a savepoint of a job's — is the unit's business
 * (src/invoke/unit-of-work.ts); staged mail goes out once the unit's writes are durable (a rollback
 * means it never existed).
 */
export function callHandler(runtime: InvokeRuntime, unit: UnitOfWork, call: HandlerCall): Promise<unknown> {
  const { tracing } = runtime;
  if (tracing === undefined) return runHandler(runtime, unit, call);
  const { contract } = call.handler;
  const traced = {
    capabilityId: contract.id,
    capabilityVersion: contract.version,
    organizationId: call.principal.organization_id,
  };
  return tracing.handler(traced, () => runHandler(runtime, unit, call));
}

/** {@link callHandler} without its span. */
async function runHandler(runtime: InvokeRuntime, unit: UnitOfWork, call: HandlerCall): Promise<unknown> {
  const run = new RunSignal();
  let mail: TransactionMail | undefined;
  try {
    return await unit.runHandler(
      call.principal.organization_id,
      call.mutating,
      (sql) => {
        mail = runtime.mail ? transactionMail(sql, runtime.mail) : undefined;
        return call.handler.handle(call.params as never, context(runtime, call, sql, mail, run));
      },
      () => mail?.dispatch(),
    );
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
    // On the handler's own connection, as the runtime role: the runtime-role migration lets it read its
    // own organization's wallet rows.
    wallet: { getSnapshot: (organizationId, now) => readWalletSnapshot(sql, organizationId, now) },
    fetch: runtime.fetchFor(call.egressHosts),
    mail: mail?.port ?? noMail,
    ...(runtime.publicBaseUrl === undefined ? {} : { publicBaseUrl: runtime.publicBaseUrl }),
    ...(call.reportCost === undefined ? {} : { reportCost: call.reportCost }),
  };
}
