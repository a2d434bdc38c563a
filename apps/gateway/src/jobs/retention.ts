import type { Knex } from 'knex';
import type { Logger } from '../logger.js';

/**
 * Finished jobs are kept 7 days by default (JOB_RETENTION_HOURS, at least 24 h). A result is polled
 * within minutes (the SDK gives up after 15), a week leaves room to look into a job afterwards, and
 * the audit log keeps every job's outcome record regardless. Never below the idempotency retention
 * (24 h): a replayed `accepted` answer must not point at a job that is gone.
 */
export const DEFAULT_JOB_RETENTION_HOURS = 168;

/** Rows one statement deletes: each statement stays short, so it never holds the database for long. */
export const SWEEP_BATCH = 500;

const DEFAULT_SWEEP_INTERVAL_MS = 10 * 60_000;
// A process that restarts more often than the interval still sweeps.
const FIRST_SWEEP_MAX_DELAY_MS = 60_000;
// After a full batch the next one follows soon, so a backlog drains without one long statement.
const BACKLOG_PAUSE_MS = 1000;

/**
 * Deletes up to `batch` finished (`succeeded` or `failed`) jobs whose `finished_at` is older than
 * `retentionHours` on the database clock; returns how many. Queued and running jobs are never touched,
 * however old. `SKIP LOCKED`: processes sweeping at once take different rows instead of waiting.
 */
export async function sweepFinishedJobs(
  knex: Knex,
  retentionHours: number,
  batch: number = SWEEP_BATCH,
): Promise<number> {
  // The predicate repeats the partial index's (invoke_jobs_finished_idx), so the index serves it.
  const result = await knex.raw(
    `delete from invoke_jobs
      where id in (
        select id from invoke_jobs
         where status in ('succeeded', 'failed')
           and finished_at < now() - make_interval(hours => ?)
         order by finished_at
         limit ?
         for update skip locked)
      returning id`,
    [retentionHours, batch],
  );
  return (result.rows as unknown[]).length;
}

/** Settings of the sweep (StartOptions.jobs). */
export interface JobSweepOptions {
  /** Finished jobs older than this are deleted. Default 168 (JOB_RETENTION_HOURS). */
  readonly retentionHours?: number | undefined;
  /** Pause between sweeps. Default 10 minutes. */
  readonly sweepIntervalMs?: number | undefined;
}

/** The periodic retention sweep of one process. */
export interface JobSweeper {
  start(): void;
  /** Stops the timer and waits for a sweep in progress (one short statement). */
  stop(): Promise<void>;
  /** Deletes one batch now; returns how many jobs went. */
  sweep(): Promise<number>;
}

/**
 * Sweeps finished jobs past their retention every `sweepIntervalMs` (the first one at most a minute
 * after start), one batch per statement, the next batch 1 s after a full one. A failed sweep is
 * logged and tried again at the next interval. Its own timer, so a long job does not delay it.
 */
export function createJobSweeper(knex: Knex, logger: Logger, options: JobSweepOptions = {}): JobSweeper {
  const retentionHours = options.retentionHours ?? DEFAULT_JOB_RETENTION_HOURS;
  const intervalMs = options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;

  const sweep = () => sweepFinishedJobs(knex, retentionHours);

  function schedule(delayMs: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      running = sweep()
        .then((deleted) => {
          if (deleted > 0) logger.info({ deleted, retention_hours: retentionHours }, 'swept finished jobs');
          return deleted >= SWEEP_BATCH ? Math.min(BACKLOG_PAUSE_MS, intervalMs) : intervalMs;
        })
        .catch((error: unknown) => {
          logger.error({ err: error }, 'job retention sweep failed');
          return intervalMs;
        })
        .then((next) => {
          running = undefined;
          schedule(next);
        });
    }, delayMs);
    timer.unref();
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      schedule(Math.min(intervalMs, FIRST_SWEEP_MAX_DELAY_MS));
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
    sweep,
  };
}
