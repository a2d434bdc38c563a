import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import { CapabilityError } from '../../define.js';
import type { ReminderLetter } from './reminder-letter.js';
import type { RenderJob, RenderOutcome } from './render-worker.js';
import type { Rendering } from './rendering.js';
import type { EInvoiceSource } from './xml/index.js';

/**
 * PDF rendering, XML writing and the XSD/Schematron checks of a 250-line document take seconds of CPU:
 * on the event loop they stopped every other request (issue 26, finding 1). They run in a pool of worker
 * threads (piscina) instead, each job with a time budget.
 */

/** How long one rendering may wait for and use a thread, unless configured otherwise. */
export const DEFAULT_RENDER_TIMEOUT_MS = 60_000;

/** Threads by default: the machine's cores less one for the event loop, at least 1, at most 4. */
const DEFAULT_THREADS = Math.max(1, Math.min(availableParallelism() - 1, 4));

/**
 * Renderings that may wait for a thread. A read's waits holding no database connection, but a send's
 * waits inside its mutation's transaction, which holds one: the few that wait must leave most of the
 * pool (10 connections) to everyone else.
 */
const MAX_QUEUE = 4;

/** How much lower the render threads' scheduling priority is than the event loop's (nice, 0-19). */
const RENDER_NICENESS = 10;

/** An idle thread ends after this long, and gives back its parsed rule sets (≈200 MiB). */
const IDLE_TIMEOUT_MS = 5 * 60_000;

/** The render pool's settings (the billing domain's, else the defaults). */
export interface RenderPoolOptions {
  /** Budget of one rendering in milliseconds, its wait for a thread included (BILLING_RENDER_TIMEOUT_MS). */
  readonly timeoutMs?: number;
  /** Worker threads (BILLING_RENDER_THREADS). */
  readonly threads?: number;
}

/** The settings in force: `options` over the defaults. */
export function renderPoolSettings(options: RenderPoolOptions = {}): Required<RenderPoolOptions> {
  return {
    timeoutMs: options.timeoutMs ?? DEFAULT_RENDER_TIMEOUT_MS,
    threads: options.threads ?? DEFAULT_THREADS,
  };
}

/**
 * The worker's file beside this module: `render-worker.js`/`.cjs` in the built package (whichever
 * format loaded this), `render-worker.ts` under the test runner, which a worker thread (plain Node) can
 * only load through tsx, with the contracts resolved to their sources as in the parent.
 */
function workerEntry(): { filename: string; execArgv: string[] } {
  const here = fileURLToPath(import.meta.url);
  if (extname(here) !== '.ts') {
    return { filename: join(dirname(here), `render-worker${extname(here)}`), execArgv: [] };
  }
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return {
    filename: join(dirname(here), 'render-worker.ts'),
    execArgv: ['--import', tsx, '--conditions=@agw/source'],
  };
}

// Without a start (a script, a test calling a handler) the defaults apply on first use.
let settings: Required<RenderPoolOptions> | undefined;
let pool: Piscina<RenderJob, RenderOutcome> | undefined;
let users = 0;

function current(): Required<RenderPoolOptions> {
  settings ??= renderPoolSettings();
  return settings;
}

function started(): Piscina<RenderJob, RenderOutcome> {
  pool ??= new Piscina<RenderJob, RenderOutcome>({
    ...workerEntry(),
    minThreads: 0,
    maxThreads: current().threads,
    maxQueue: MAX_QUEUE,
    idleTimeout: IDLE_TIMEOUT_MS,
    // Renderings yield the CPU to the event loop and the database: on a busy machine every other
    // request is answered first, and a rendering takes longer (Linux; elsewhere ignored).
    niceIncrement: RENDER_NICENESS,
  });
  return pool;
}

/**
 * Takes the pool into use with `options` (the billing domain's start in a gateway) and answers the
 * function that lets go of it: the last user's release ends the threads. Settings are per process; the
 * last start's win. Without any start (a script, a test calling a handler) the pool starts on first use
 * and its idle threads never keep the process alive.
 */
export function useRenderPool(options: RenderPoolOptions = {}): () => Promise<void> {
  settings = renderPoolSettings(options);
  users += 1;
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    users -= 1;
    if (users > 0) return;
    settings = undefined;
    const ending = pool;
    pool = undefined;
    await ending?.destroy();
  };
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * A rendering that failed without a refusal of its own: its thread died (out of memory, a crash), the
 * queue filled between the check and the run, or the pool was being stopped. None of it says the
 * document is wrong, and nothing was changed: 503 `dependency_unavailable`, retryable, as for the budget.
 * The thread's own error is kept as the cause.
 */
function rendererFailed(what: string, cause: unknown): CapabilityError {
  const failed = new CapabilityError(
    'dependency_unavailable',
    `The document renderer failed on the ${what}; try again shortly.`,
    [],
    5,
  );
  failed.cause = cause;
  return failed;
}

/**
 * Renders `format` of `stored` on a pool thread within the time budget. A document the rules refuse
 * throws its CapabilityError as in process; a rendering past its budget (its thread is ended) or with no
 * room in the queue is 503 `dependency_unavailable`, retryable: on a busy machine the next try may fit.
 */
export function renderInPool(
  format: 'pdf' | 'xrechnung' | 'facturx',
  stored: EInvoiceSource,
): Promise<Rendering> {
  return runInPool({ format, stored }, `${format} of document ${stored.document.id}`);
}

/** The PDF of a reminder's letter on a pool thread, within the same budget and queue as a document's. */
export function renderReminderInPool(letter: ReminderLetter): Promise<Rendering> {
  return runInPool({ format: 'reminder', letter }, `PDF of reminder ${letter.reminder.id}`);
}

/** Runs `job` on a pool thread; `what` names the rendering in a refusal ("pdf of document …"). */
async function runInPool(job: RenderJob, what: string): Promise<Rendering> {
  const { timeoutMs } = current();
  const signal = AbortSignal.timeout(timeoutMs);
  const threads = started();
  if (threads.queueSize >= MAX_QUEUE) {
    throw new CapabilityError(
      'dependency_unavailable',
      `Every document renderer is busy (${MAX_QUEUE} renderings waiting); try again shortly.`,
      [],
      5,
    );
  }
  let outcome: RenderOutcome;
  try {
    outcome = await threads.run(job, { signal });
  } catch (error) {
    if (!signal.aborted) throw rendererFailed(what, error);
    throw new CapabilityError(
      'dependency_unavailable',
      `Rendering the ${what} took longer than its budget of ${timeoutMs} ms and was stopped; try again later. The operator can raise the budget (BILLING_RENDER_TIMEOUT_MS).`,
      [],
      seconds(timeoutMs),
    );
  }
  if ('refused' in outcome) {
    const { code, message, violations } = outcome.refused;
    throw new CapabilityError(code, message, violations);
  }
  const { rendering } = outcome;
  // Bytes cross the thread boundary as a plain Uint8Array.
  const bytes = Buffer.from(rendering.bytes.buffer, rendering.bytes.byteOffset, rendering.bytes.byteLength);
  return { ...rendering, bytes };
}
