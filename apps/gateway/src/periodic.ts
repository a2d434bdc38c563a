import { withTimeout } from './checks/with-timeout.js';
import type { Logger } from './logger.js';

// Stopping does not wait longer than this for the last run (a dead database must not hold shutdown).
const FINAL_RUN_TIMEOUT_MS = 2000;

/** Background work of one gateway process on a timer (the audit sealer, the charge roll-up). */
export interface PeriodicTask {
  /** Starts running every interval (idempotent). */
  start(): void;
  /** Stops the timer, waits for a run in progress, then runs once more (bounded) for the last requests. */
  stop(): Promise<void>;
}

/**
 * Runs `run` every `intervalMs` after the previous run ended — or `busyIntervalMs` after a run that
 * answered `true` (it found work, so more is likely waiting): runs never overlap and the timer does not
 * keep the process alive. A failed run is logged (`failure` message) and retried after `intervalMs`.
 */
export function createPeriodicTask(options: {
  // biome-ignore lint/suspicious/noConfusingVoidType: a task with nothing to report is an async function returning nothing
  readonly run: () => Promise<boolean | void>;
  readonly intervalMs: number;
  readonly busyIntervalMs?: number;
  readonly logger: Logger;
  readonly failure: string;
}): PeriodicTask {
  const { intervalMs, logger } = options;
  const busyIntervalMs = options.busyIntervalMs ?? intervalMs;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;

  const run = (): Promise<boolean> =>
    options.run().then(
      (busy) => busy === true,
      (error: unknown) => {
        logger.error({ err: error }, options.failure);
        return false;
      },
    );
  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = run().then((busy) => {
        running = undefined;
        schedule(busy ? busyIntervalMs : intervalMs);
      });
    }, delayMs);
    timer.unref();
  };

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      schedule(intervalMs);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      await withTimeout(
        (running ?? Promise.resolve()).then(() => run()),
        FINAL_RUN_TIMEOUT_MS,
        undefined,
      );
    },
  };
}
