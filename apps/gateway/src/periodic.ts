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
 * Runs `run` every `intervalMs` after the previous run ended: runs never overlap and the timer does not
 * keep the process alive. A failed run is logged (`failure` message) and retried on the next tick.
 */
export function createPeriodicTask(options: {
  readonly run: () => Promise<void>;
  readonly intervalMs: number;
  readonly logger: Logger;
  readonly failure: string;
}): PeriodicTask {
  const { intervalMs, logger } = options;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;

  const run = (): Promise<void> =>
    options.run().catch((error: unknown) => logger.error({ err: error }, options.failure));
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = run().finally(() => {
        running = undefined;
        schedule();
      });
    }, intervalMs);
    timer.unref();
  };

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      schedule();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      await withTimeout((running ?? Promise.resolve()).then(run), FINAL_RUN_TIMEOUT_MS, undefined);
    },
  };
}
