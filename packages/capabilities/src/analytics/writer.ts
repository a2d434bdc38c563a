import type { DomainLog } from '../domain.js';
import type { SqlDatabase } from '../sql.js';
import { runStatement } from '../sql.js';
import { type EventRecord, insertEventBatch, type StaleRecord } from './sql.js';

export type { EventRecord, StaleRecord };

/**
 * Rows per statement, each statement its own commit: a big backlog is written in several, none of
 * them long (on PGlite, one session, a statement holds the database: 500 rows are about 10 ms).
 */
const ROWS_PER_STATEMENT = 500;
/**
 * How long a batch gathers before it is written, unless it fills a statement first or the writer stops.
 * Each statement has a fixed cost (a round trip and a plan on PostgreSQL; about 0.4 ms of CPU on
 * PGlite, where 20 rows cost 43 µs each and 200 rows 26 µs each): without the wait a batch
 * only holds what arrived during the previous write (under load, about one event per open connection).
 * Events become readable up to this much later; nobody waits for it (the 202 is already sent).
 */
export const GATHER_MS = 20;
/**
 * Rows waiting at most (about 10 MB), shared between organizations: an organization may hold at most as
 * many as are left free for the others, so one fills at most half (see `accept`), however many of its
 * properties it sends through. Beyond its share, ingestion answers 503 until the database catches up.
 */
export const MAX_QUEUED_ROWS = 20_000;
/** Wait before writing again after the database failed (it is down or restarting). */
const RETRY_AFTER_FAILURE_MS = 1000;

/**
 * SQLSTATE class 23 (a stale mark of a property deleted meanwhile) or 22 (a value the database cannot hold): a row
 * the database refuses, not an outage. Retried as an outage, one such row would hold up every row
 * behind it for good.
 */
function refusedRow(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('23') || code.startsWith('22'));
}

/**
 * Group commit for ingestion, off the request's path: a request hands its rows over and is answered
 * 202 at once; the writer takes everything that is waiting and writes it with one INSERT statement
 * per 500 rows (insertEventBatch: atomic on its own, so no BEGIN/COMMIT round trips), at most every
 * GATHER_MS: while one batch commits (and for the rest of GATHER_MS) the next one gathers, so the busier
 * it gets the bigger the batches and the fewer the commits, and a request never waits for the database
 * (with a commit per request, or a wait for the group's commit, throughput is connections ÷ commit
 * latency).
 * The price, chosen deliberately (docs/analytics.md): events accepted in the last moments before a crash
 * of the process are lost; a graceful stop writes everything first (`drain`). When the database is down
 * the rows wait (each property up to its share of MAX_QUEUED_ROWS, then `accept` refuses it) and are
 * written once it is back; a row the database refuses is dropped alone, not with its batch.
 */
export class EventWriter {
  #queue: EventRecord[] = [];
  /** Rows in the queue per organization; an organization with none is not in it. */
  #queuedOf = new Map<string, number>();
  /** The organization of each property whose rows were accepted (a row carries only its property). */
  #organizationOf = new Map<string, string>();
  #marks: StaleRecord[] = [];
  #running: Promise<void> | undefined;
  #stopping = false;
  /** Ends the current gathering wait early (a full statement, or drain). */
  #wake: (() => void) | undefined;
  /** When the last statement was sent (Date.now()). */
  #lastWrite = 0;
  /** Rows accepted and then lost: refused by the database, of a deleted property, or a failed last write. */
  #dropped = 0;

  readonly #maxQueued: number;
  readonly #gatherMs: number;

  constructor(
    private readonly sql: SqlDatabase,
    private readonly log: DomainLog,
    limits: { maxQueued?: number; gatherMs?: number } = {},
  ) {
    this.#maxQueued = limits.maxQueued ?? MAX_QUEUED_ROWS;
    this.#gatherMs = limits.gatherMs ?? GATHER_MS;
  }

  /**
   * Queues `rows` of `organizationId`'s properties (and the stale marks of their days) for the next
   * batch; false (nothing queued) when the organization would then hold more queued rows than are left
   * free. So the backlog is shared: one organization alone fills at most half of it, each one that joins
   * at most half of what is left, and an organization with nothing queued gets its events in as long as
   * a few rows are free — a flood of one tenant, through one property or many, never shuts another out
   * (apps/gateway/test/analytics-abuse.test.ts).
   */
  accept(organizationId: string, rows: readonly EventRecord[], marks: readonly StaleRecord[] = []): boolean {
    const free = this.#maxQueued - this.#queue.length - rows.length;
    if (free < 0 || (this.#queuedOf.get(organizationId) ?? 0) + rows.length > free) return false;
    for (const row of rows) {
      this.#organizationOf.set(row.p, organizationId);
      this.#queue.push(row);
      this.#count(row.p, 1);
    }
    for (const mark of marks) this.#marks.push(mark);
    this.#running ??= this.#run();
    if (this.#queue.length >= ROWS_PER_STATEMENT) this.#wake?.();
    return true;
  }

  /** Counts a row of `property` in (1) or out (-1) of its organization's share. */
  #count(property: string, change: number): void {
    const organization = this.#organizationOf.get(property) ?? property;
    const count = (this.#queuedOf.get(organization) ?? 0) + change;
    if (count > 0) this.#queuedOf.set(organization, count);
    else this.#queuedOf.delete(organization);
  }

  /** Rows accepted and not yet committed. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Rows accepted since the start and never written (see `#dropped`). */
  get dropped(): number {
    return this.#dropped;
  }

  /**
   * Resolves once every accepted row is written (the gateway's stop calls it); after it, a failure is
   * not retried (the process is ending) but logged with the number of events lost.
   */
  async drain(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    while (this.#running !== undefined) await this.#running;
  }

  async #run(): Promise<void> {
    // Let the requests of this turn of the event loop join the first batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#queue.length > 0) {
      await this.#gather();
      const batches = [this.#take()];
      // A backlog of full statements goes two at a time (PostgreSQL runs them on two connections), so a
      // busy database catches up sooner. Not while stale marks wait: a mark must not commit before the
      // events it was queued with, and two statements in flight commit in either order.
      if (this.#queue.length >= ROWS_PER_STATEMENT && this.#marks.length === 0) batches.push(this.#take());
      this.#lastWrite = Date.now();
      const outcomes = await Promise.all(batches.map((batch) => this.#write(batch.rows, batch.marks)));
      if (outcomes.includes('retry'))
        await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_FAILURE_MS));
    }
    this.#running = undefined;
  }

  /** The next statement's rows, with the marks when they are the last rows queued with them. */
  #take(): { rows: EventRecord[]; marks: StaleRecord[] } {
    const rows = this.#queue.splice(0, ROWS_PER_STATEMENT);
    for (const row of rows) this.#count(row.p, -1);
    // Marks go with the last of the rows queued with them (never before their events are committed).
    const marks = this.#queue.length === 0 ? this.#marks.splice(0) : [];
    return { rows, marks };
  }

  /** Writes one statement's rows; 'retry' when the database failed and they wait in the queue again. */
  async #write(batch: EventRecord[], marks: StaleRecord[]): Promise<'done' | 'retry'> {
    try {
      await this.#insert(batch, marks);
    } catch (error) {
      if (refusedRow(error)) await this.#insertOneByOne(batch, marks);
      else if (this.#stopping) {
        const lost = batch.length + this.#queue.length;
        this.#dropped += lost;
        this.log.error({ err: error, lost_events: lost }, 'event write failed');
        this.#queue = [];
        this.#queuedOf.clear();
        this.#marks = [];
      } else {
        const queued = batch.length + this.#queue.length;
        this.log.warn({ err: error, queued_events: queued }, 'event write failed');
        this.#requeue(batch, marks);
        return 'retry';
      }
    }
    return 'done';
  }

  /**
   * Waits until the gathering time (GATHER_MS by default) after the previous statement was sent, unless
   * a statement is full already or the writer is stopping. Counted from the previous statement's start,
   * not its end: a write that took longer gathered its successor meanwhile, and the writer keeps up with
   * any rate the database can take (a full statement does not wait at all).
   */
  async #gather(): Promise<void> {
    const wait = this.#lastWrite + this.#gatherMs - Date.now();
    if (wait <= 0 || this.#stopping || this.#queue.length >= ROWS_PER_STATEMENT) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.#wake?.(), wait);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
    });
  }

  /** Back to the front of the queue, counted again (a requeue may take an organization past its share). */
  #requeue(rows: readonly EventRecord[], marks: readonly StaleRecord[]): void {
    for (const row of rows) this.#count(row.p, 1);
    this.#queue = rows.concat(this.#queue);
    this.#marks = marks.concat(this.#marks);
  }

  async #insert(rows: readonly EventRecord[], marks: readonly StaleRecord[]): Promise<void> {
    // One mark per property and day is enough.
    const days = new Map(marks.map((mark) => [`${mark.property_id} ${mark.day}`, mark]));
    const { rowCount } = await runStatement(this.sql, insertEventBatch, [
      JSON.stringify(rows),
      JSON.stringify([...days.values()]),
      [...new Set(rows.map((row) => row.p))],
    ]);
    // Events of a property deleted since they were accepted go with it, as if written just before.
    if (rowCount < rows.length) {
      this.#dropped += rows.length - rowCount;
      this.log.warn({ dropped_events: rows.length - rowCount }, 'events of a deleted property dropped');
    }
  }

  /**
   * A batch the database refused: each row on its own, so only the refused ones are dropped; then the
   * marks (a mark of a property deleted meanwhile is dropped as well).
   */
  async #insertOneByOne(rows: readonly EventRecord[], marks: readonly StaleRecord[]): Promise<void> {
    let dropped = 0;
    for (let index = 0; index < rows.length; index += 1) {
      try {
        await this.#insert([rows[index] as EventRecord], []);
      } catch (error) {
        if (!refusedRow(error)) {
          // An outage meanwhile: the rest waits for the next attempt.
          this.#requeue(rows.slice(index), marks);
          await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_FAILURE_MS));
          return;
        }
        dropped += 1;
      }
    }
    this.#dropped += dropped;
    if (dropped > 0) this.log.warn({ dropped_events: dropped }, 'events refused by the database');
    for (const mark of marks) {
      await this.#insert([], [mark]).catch((error: unknown) => {
        if (!refusedRow(error)) this.#marks.push(mark);
      });
    }
  }
}
