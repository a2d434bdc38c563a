import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import type { ValidationReport } from '@agw/capabilities';
import { EINVOICE_KINDS, type EInvoiceKind } from '@agw/capabilities';
import type { CommandContext } from '../context.js';
import { EXIT, ExitError } from '../io.js';
import { colorsFor, writeJson } from '../output.js';

/** Flags of `agw einvoice validate`. */
export interface EInvoiceValidateFlags {
  readonly as?: EInvoiceKind | undefined;
  readonly json?: boolean | undefined;
}

export { EINVOICE_KINDS };

/** Exit code of a file that breaks an official rule. */
export const EXIT_EINVOICE_INVALID = 8;

/**
 * Largest file `agw einvoice validate` reads: 20 MiB. A 1 000-line XRechnung is about 2 MB, and the
 * checks hold several copies of the document in memory (a 50 MB file took more than 1.6 GB and minutes).
 */
export const MAX_EINVOICE_BYTES = 20 * 1024 * 1024;

/** Sets the validation's heap limit in MB (default: Node's, from the machine's memory). */
export const EINVOICE_MEMORY_ENV = 'AGW_EINVOICE_MAX_MEMORY_MB';

/**
 * `agw einvoice validate <file>`: the same in-process checks billing.document.xrechnung and .facturx
 * run before they answer (XSD, then the official EN 16931 and XRechnung / Factur-X Schematron), on any
 * XML file. Exits 0 when valid, 8 when a rule is broken (the findings are printed first), 2 when
 * the file cannot be read, is larger than MAX_EINVOICE_BYTES, is not an e-invoice it knows, or the
 * checks run out of memory on it (one line on stderr each).
 */
export async function einvoiceValidate(
  file: string,
  flags: EInvoiceValidateFlags,
  context: CommandContext,
): Promise<void> {
  const bytes = await readAtMost(file, MAX_EINVOICE_BYTES);
  const { kind, report } = await validateInWorker(file, bytes, flags.as, memoryLimitOf(context.env));
  if (kind === undefined || report === undefined) {
    throw new ExitError(
      EXIT.usage,
      `${file} is neither UBL (Invoice, CreditNote) nor CII (CrossIndustryInvoice); name what to check it as with --as (${EINVOICE_KINDS.join(', ')})`,
    );
  }
  if (flags.json) {
    writeJson(context.io, { file, kind, ...report });
  } else {
    const colors = colorsFor(context.io, context.env);
    const lines = [`${file}: ${kind}, ${report.valid ? colors.green('valid') : colors.red('invalid')}`];
    for (const set of report.rule_sets) {
      lines.push(`  ${set.name} ${set.version}: ${set.fatal} error(s), ${set.warnings} warning(s)`);
    }
    for (const error of report.errors) lines.push(`  ${colors.red('error')} ${error.rule}: ${error.message}`);
    for (const warning of report.warnings) lines.push(`  ${colors.yellow('warning')} ${warning}`);
    context.io.stdout(`${lines.join('\n')}\n`);
  }
  if (!report.valid) {
    const rules = [...new Set(report.errors.map((error) => error.rule))];
    throw new ExitError(EXIT_EINVOICE_INVALID, `${file} breaks ${rules.join(', ')}`);
  }
}

/** The file's bytes; a usage error when it cannot be read or holds more than `limit` bytes. */
async function readAtMost(file: string, limit: number): Promise<Buffer> {
  const unreadable = (error: NodeJS.ErrnoException) =>
    new ExitError(EXIT.usage, `cannot read ${file}: ${error.code ?? error.message}`);
  const tooLarge = () =>
    new ExitError(
      EXIT.usage,
      `${file} is larger than ${limit / 1024 / 1024} MB, the most agw einvoice validate reads (a real e-invoice is a few MB at most)`,
    );
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
    throw unreadable(error);
  });
  if (info.isFile() && info.size > limit) throw tooLarge();
  // Read with the bound too: a device or a pipe has no size to ask first.
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of createReadStream(file, { end: limit })) {
      chunks.push(chunk as Buffer);
      total += (chunk as Buffer).length;
    }
  } catch (error) {
    throw unreadable(error as NodeJS.ErrnoException);
  }
  if (total > limit) throw tooLarge();
  return Buffer.concat(chunks, total);
}

function memoryLimitOf(env: NodeJS.ProcessEnv): number | undefined {
  const value = env[EINVOICE_MEMORY_ENV];
  if (value === undefined || value === '') return undefined;
  const megabytes = Number(value);
  if (!Number.isInteger(megabytes) || megabytes < 16) {
    throw new ExitError(
      EXIT.usage,
      `${EINVOICE_MEMORY_ENV} must be a whole number of megabytes, at least 16`,
    );
  }
  return megabytes;
}

interface WorkerOutcome {
  readonly kind?: EInvoiceKind;
  readonly report?: ValidationReport;
}

// The checks run in a worker thread with its own heap (einvoice-worker.ts): running out of memory ends
// the worker with an error the CLI can answer, where in the main thread it would abort the process with
// a fatal error and a stack.
function startWorker(options: WorkerOptions): Worker {
  if (!import.meta.url.endsWith('.ts')) {
    // Built: bin.js and einvoice-worker.js side by side (tsup.config.ts).
    return new Worker(new URL('./einvoice-worker.js', import.meta.url), options);
  }
  // From the TypeScript sources (tests, `--import tsx`): a worker thread is plain Node, so it registers
  // tsx itself and resolves the workspace packages to their sources, as this thread does.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href;
  const entry = new URL('./einvoice-worker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(bootstrap, { ...options, eval: true, execArgv: ['--conditions=@agw/source'] });
}

/** Detects and validates `bytes` on a worker thread; out of memory and too deep or long are usage errors. */
function validateInWorker(
  file: string,
  bytes: Buffer,
  as: EInvoiceKind | undefined,
  memoryMb: number | undefined,
): Promise<WorkerOutcome> {
  const worker = startWorker({
    workerData: { bytes, as },
    ...(memoryMb === undefined ? {} : { resourceLimits: { maxOldGenerationSizeMb: memoryMb } }),
  });
  return new Promise<WorkerOutcome>((resolve, reject) => {
    worker.once('message', (outcome: WorkerOutcome) => {
      resolve(outcome);
      // The checks' warm-up keeps handles open; the answer is all that is needed.
      void worker.terminate();
    });
    worker.once('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        reject(
          new ExitError(
            EXIT.usage,
            `${file}: the checks ran out of memory (${memoryMb === undefined ? "Node's default heap" : `${memoryMb} MB`}); raise ${EINVOICE_MEMORY_ENV} or check a smaller file`,
          ),
        );
      } else if (error instanceof RangeError) {
        // Call stack or string length exceeded: the document is too deep or too long to check.
        reject(
          new ExitError(EXIT.usage, `${file} is too large or too deeply nested to check: ${error.message}`),
        );
      } else reject(error);
    });
    worker.once('exit', (code) => {
      reject(new Error(`the e-invoice check stopped (exit code ${code})`));
    });
  });
}
