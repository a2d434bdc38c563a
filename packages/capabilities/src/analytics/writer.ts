import type { SqlDatabase } from '../sql.js';
import { insertEventsText } from './sql.js';

/** One event row, values in EVENT_COLUMNS order. */
export type EventRow = readonly unknown[];

/** Rows per INSERT statement (14 parameters each, well under PostgreSQL's 65 535). */
const ROWS_PER_STATEMENT = 500;

interface Waiting {
  readonly rows: EventRow[];
  readonly done: () => void;
  readonly failed: (error: unknown) => void;
}

/**
 * Group commit for ingestion: requests add their rows and wait; the writer takes everything that is
 * waiting and writes it in one transaction of multi-row INSERTs, then answers those requests at once.
 * No timer: while one batch commits the next one gathers, so the busier it gets the bigger the batches
 * and the fewer the commits. A request is answered 202 only after its events are committed, so an
 * accepted event survives a crash of the process.
 */
export class EventWriter {
  #waiting: Waiting[] = [];
  #running: Promise<void> | undefined;

  constructor(private readonly sql: SqlDatabase) {}

  /** Resolves once `rows` are committed. */
  write(rows: EventRow[]): Promise<void> {
    return new Promise((done, failed) => {
      this.#waiting.push({ rows, done, failed });
      this.#running ??= this.#run();
    });
  }

  /** Resolves when everything waiting now is written (the gateway's stop calls it). */
  async drain(): Promise<void> {
    await this.#running;
  }

  async #run(): Promise<void> {
    // Let the requests of this turn of the event loop join the first batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#waiting.length > 0) {
      const batch = this.#waiting;
      this.#waiting = [];
      const rows = batch.flatMap((request) => request.rows);
      try {
        await this.sql.transaction(async (sql) => {
          for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
            const chunk = rows.slice(start, start + ROWS_PER_STATEMENT);
            await sql.query(insertEventsText(chunk.length), chunk.flat());
          }
        });
        for (const request of batch) request.done();
      } catch (error) {
        for (const request of batch) request.failed(error);
      }
    }
    this.#running = undefined;
  }
}
