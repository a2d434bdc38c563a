import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** A capability as a metric names it: its catalog id and version, never anything the caller sent. */
export interface CapabilityLabel {
  readonly id: string;
  readonly version: string;
}

interface Observer {
  observe(value: number): void;
}

interface Incrementer {
  inc(value?: number): void;
}

/** The meta-tools counted per capability and outcome. */
export type CountedTool = 'invoke' | 'dry_run';

// Seconds; from a cached read (about a millisecond) to the 30 s statement timeout.
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
// A statement: from a fraction of a millisecond on a warm connection.
const STATEMENT_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];

/**
 * The gateway's metrics, in a registry of their own (never prom-client's global one, which an embedder
 * may use for theirs): what the request path records (requests, invokes, refusals, credits, statements)
 * and Node's own (event-loop lag, heap, GC). The machinery read at scrape time is added by
 * src/metrics/machinery.ts. Every label value is bounded: route templates, status classes, catalog
 * capability ids, error codes and guard names — never an id, a key or a path parameter.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly #requests = new Histogram({
    name: 'agw_http_request_duration_seconds',
    help: 'Answered HTTP requests (its _count is the request count) by method, route template and status class',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly #calls = new Counter({
    name: 'agw_meta_tool_calls_total',
    help: 'invoke and dry_run calls by capability, version and outcome (succeeded, pending_approval, accepted, valid, invalid, or the error code)',
    labelNames: ['tool', 'capability', 'version', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly #invokeSeconds = new Histogram({
    name: 'agw_invoke_duration_seconds',
    help: 'The whole invoke (guards, handler, settle), by capability and version',
    labelNames: ['capability', 'version'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly #handlerSeconds = new Histogram({
    name: 'agw_handler_duration_seconds',
    help: "The capability's handler alone, by capability and version (jobs included)",
    labelNames: ['capability', 'version'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly #refusals = new Counter({
    name: 'agw_guard_refusals_total',
    help: 'Runs a guard of the chain refused (denied or faulted), by guard and error code',
    labelNames: ['guard', 'code'] as const,
    registers: [this.registry],
  });
  readonly #credits = new Counter({
    name: 'agw_credits_charged_total',
    help: 'Credits charged for runs, by capability and version',
    labelNames: ['capability', 'version'] as const,
    registers: [this.registry],
  });
  readonly #statements = new Histogram({
    name: 'agw_db_statement_duration_seconds',
    help: "Statements of the gateway's SQL port (not knex's cold paths), as the gateway waited for them",
    buckets: STATEMENT_BUCKETS,
    registers: [this.registry],
  });
  readonly #publicRateLimited = new Counter({
    name: 'agw_public_rate_limited_total',
    help: "Requests to a domain's public route (event ingestion, booking pages) refused 429, by route template",
    labelNames: ['route'] as const,
    registers: [this.registry],
  });
  /** The public routes' templates, whose 429s are counted apart (src/domains/public-dispatch.ts). */
  readonly #publicRoutes = new Set<string>();
  // prom-client hashes a label object on every call; the hot path looks its series up by one string.
  readonly #observers = new Map<string, Observer>();
  readonly #counters = new Map<string, Incrementer>();

  constructor() {
    // Unprefixed, as the library names them: the Node.js dashboards and alerts operators have expect
    // `nodejs_eventloop_lag_seconds`, `process_cpu_seconds_total`.
    collectDefaultMetrics({ register: this.registry });
  }

  /** An answered request: its route template (`unmatched` when no route answered) and status. */
  request(method: string, route: string | null, status: number, seconds: number): void {
    const template = route ?? 'unmatched';
    const statusClass = `${Math.floor(status / 100)}xx`;
    this.#observer(`r ${method} ${template} ${statusClass}`, () =>
      this.#requests.labels(method, template, statusClass),
    ).observe(seconds);
    if (status === 429 && route !== null && this.#publicRoutes.has(route)) {
      this.#publicRateLimited.labels(route).inc();
    }
  }

  /** Marks `templates` as domains' public routes. */
  publicRoutes(templates: readonly string[]): void {
    for (const template of templates) this.#publicRoutes.add(template);
  }

  /** An invoke or dry_run call answered (or thrown) with `outcome`; an invoke's duration too. */
  call(tool: CountedTool, capability: CapabilityLabel, outcome: string, seconds: number): void {
    const { id, version } = capability;
    this.#counter(`c ${tool} ${id} ${version} ${outcome}`, () =>
      this.#calls.labels(tool, id, version, outcome),
    ).inc();
    if (tool === 'invoke') {
      this.#observer(`i ${id} ${version}`, () => this.#invokeSeconds.labels(id, version)).observe(seconds);
    }
  }

  /** A handler ran for `seconds`, whatever it returned or threw. */
  handler(capability: CapabilityLabel, seconds: number): void {
    const { id, version } = capability;
    this.#observer(`h ${id} ${version}`, () => this.#handlerSeconds.labels(id, version)).observe(seconds);
  }

  /** A guard refused a run with `code`. */
  refusal(guard: string, code: string): void {
    this.#counter(`g ${guard} ${code}`, () => this.#refusals.labels(guard, code)).inc();
  }

  /** `credits` (a decimal string, e.g. `0.05`) charged for a run of `capability`. */
  charged(capability: CapabilityLabel, credits: string): void {
    const amount = Number(credits);
    if (!(amount > 0)) return;
    const { id, version } = capability;
    this.#counter(`$ ${id} ${version}`, () => this.#credits.labels(id, version)).inc(amount);
  }

  /** A statement of the SQL port took `seconds` (src/db/pool.ts's hook). */
  readonly statement = (seconds: number): void => this.#statements.observe(seconds);

  /** The text format Prometheus scrapes, and its content type. */
  async exposition(): Promise<{ readonly body: string; readonly contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }

  #observer(key: string, make: () => Observer): Observer {
    let child = this.#observers.get(key);
    if (child === undefined) {
      child = make();
      this.#observers.set(key, child);
    }
    return child;
  }

  #counter(key: string, make: () => Incrementer): Incrementer {
    let child = this.#counters.get(key);
    if (child === undefined) {
      child = make();
      this.#counters.set(key, child);
    }
    return child;
  }
}

/** Seconds since `started` (process.hrtime.bigint()). */
export function secondsSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}
