import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from '../logger.js';
import { claimJob } from './job-store.js';
import { createJobSweeper, type JobSweepOptions } from './retention.js';
import { type JobRunner, runJob } from './run-job.js';

/**
 * Settings of the job worker every gateway process runs (StartOptions.jobs); with the retention
 * sweep's (`retentionHours` from JOB_RETENTION_HOURS, `sweepIntervalMs`).
 */
export interface JobWorkerOptions extends JobSweepOptions {
  /** false: this process accepts jobs but runs none (another process will). Default true. */
  readonly enabled?: boolean;
  /** Pause between claims when the queue is empty. Default 250 ms. */
  readonly pollIntervalMs?: number;
  /** How long a claim holds a job before another process may take it. Default 30 s. */
  readonly leaseMs?: number;
  /** Back-off after an unexpected handler failure, times the attempt number. Default 1 s. */
  readonly retryDelayMs?: number;
}

/** The background runner of long-running invokes. */
export interface JobWorker {
  /** Set by the meta-tool routes: the runtime, catalog and handlers jobs run with. */
  attach(runner: JobRunner): void;
  /** Starts polling (a no-op when disabled or already started). */
  start(): void;
  /** Stops polling and waits for the job in progress, which finishes and commits. Safe to call twice. */
  stop(): Promise<void>;
  /** Claims and runs due jobs until none is due; returns how many ran (tests, tools). */
  drain(): Promise<number>;
  /** Deletes one batch of finished jobs past their retention; returns how many (tests, tools). */
  sweep(): Promise<number>;
}

const DEFAULTS = { pollIntervalMs: 250, leaseMs: 30_000, retryDelayMs: 1000 };

/**
 * One worker per gateway process: it claims one due job at a time (src/jobs/job-store.ts) and runs it
 * (src/jobs/run-job.ts), then claims again until the queue is empty, then sleeps `pollIntervalMs`.
 * Several processes on one PostgreSQL share the queue safely; the lease hands a crashed process's job on.
 */
export function createJobWorker(knex: Knex, logger: Logger, options: JobWorkerOptions = {}): JobWorker {
  const settings = { ...DEFAULTS, ...options };
  const owner = `worker:${randomUUID()}`;
  const log = logger.child({ component: 'jobs', worker: owner });
  // The sweep keeps its own timer: a long job must not hold it up, nor a sweep the queue.
  const sweeper = createJobSweeper(knex, log, options);
  let runner: JobRunner | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let started = false;
  let stopping = false;

  async function drain(): Promise<number> {
    if (runner === undefined) return 0;
    let ran = 0;
    while (!stopping) {
      const job = await claimJob(knex, owner, settings.leaseMs);
      if (job === undefined) break;
      await runJob(runner, job, { owner, retryDelayMs: settings.retryDelayMs, logger: log });
      ran += 1;
    }
    return ran;
  }

  function schedule(): void {
    if (stopping) return;
    timer = setTimeout(() => {
      running = drain()
        // A failed claim or run (database down) is retried on the next tick; the lease protects the job.
        .catch((error: unknown) => log.error({ err: error }, 'job worker tick failed'))
        .finally(() => {
          running = undefined;
          schedule();
        });
    }, settings.pollIntervalMs);
    timer.unref();
  }

  return {
    attach(next) {
      runner = next;
    },
    start() {
      if (started || options.enabled === false) return;
      started = true;
      schedule();
      // A process that runs no jobs does not sweep them either; the processes that run them do.
      sweeper.start();
    },
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await Promise.all([running, sweeper.stop()]);
    },
    drain,
    sweep: sweeper.sweep,
  };
}
