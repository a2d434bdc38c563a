import { access, writeFile } from 'node:fs/promises';
import { type CommandIO, EXIT, ExitError } from './io.js';

/** A base64 string field of a result (`pdf_base64`, `xml_base64`, `content_base64`, …). */
export interface BinaryField {
  /** Keys from the result down to the field. */
  readonly path: readonly string[];
  readonly base64: string;
}

// Results are bounded by their contracts; this only keeps the walk finite on anything else.
const MAX_DEPTH = 4;

/** Every string field named `*_base64` in the result, in document order (objects and arrays walked). */
export function binaryFields(result: unknown): BinaryField[] {
  const found: BinaryField[] = [];
  const walk = (value: unknown, path: string[]) => {
    if (path.length > MAX_DEPTH || typeof value !== 'object' || value === null) return;
    for (const [key, child] of Object.entries(value)) {
      if (typeof child === 'string' && key.endsWith('_base64'))
        found.push({ path: [...path, key], base64: child });
      else walk(child, [...path, key]);
    }
  };
  walk(result, []);
  return found;
}

/**
 * The field `--out` writes: the one the result's own `mime_type` names (`pdf_base64` beside
 * `application/pdf`), else a top-level one that is not an embedded part (Factur-X's PDF, not the XML
 * inside it), else the first.
 */
export function mainBinaryField(result: unknown, fields: readonly BinaryField[]): BinaryField | undefined {
  const mimeType = (result as { mime_type?: unknown } | null)?.mime_type;
  const subtype = typeof mimeType === 'string' ? mimeType.split('/')[1] : undefined;
  const topLevel = fields.filter((field) => field.path.length === 1);
  return (
    topLevel.find((field) => subtype !== undefined && field.path[0] === `${subtype}_base64`) ??
    topLevel.find((field) => !field.path[0]?.startsWith('embedded_')) ??
    fields[0]
  );
}

/** A byte count for people: `812 B`, `35.2 KB`, `1.4 MB` (1 KB = 1024 bytes). */
function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Decoded size of base64 text without decoding it. */
function decodedSize(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

/**
 * A copy of the result for a person to read: each base64 field becomes a short note (its size and how
 * to get it), the one written by `--out` says where it went.
 */
export function withoutBase64(result: unknown, written: Written | undefined): unknown {
  const fields = binaryFields(result);
  if (fields.length === 0) return result;
  const copy = structuredClone(result) as Record<string, unknown>;
  for (const field of fields) {
    const parent = field.path
      .slice(0, -1)
      .reduce<Record<string, unknown>>((node, key) => node[key] as Record<string, unknown>, copy);
    const key = field.path.at(-1) as string;
    parent[key] =
      written && samePath(written.field, field)
        ? `<written to ${written.target === '-' ? 'stdout' : written.target}>`
        : `<${formatSize(decodedSize(field.base64))} not shown: --out FILE writes it, --json prints it>`;
  }
  return copy;
}

function samePath(a: BinaryField, b: BinaryField): boolean {
  return a.path.join('\u0000') === b.path.join('\u0000');
}

/** `--out` and `--force` of a command that can write a binary result. */
export interface OutFlags {
  /** File to write the decoded bytes to; `-` writes them to stdout. */
  readonly out?: string | undefined;
  /** Overwrite an existing file. */
  readonly force?: boolean | undefined;
  readonly json?: boolean | undefined;
}

/**
 * Refuses, before any request is sent (and charged), an `--out` that cannot be honoured: an existing
 * file without `--force`, `-` on a terminal, or `-` with `--json` (both would go to stdout).
 */
export async function checkOutTarget(flags: OutFlags, io: CommandIO): Promise<void> {
  if (flags.out === undefined) return;
  if (flags.out === '-') {
    if (flags.json) throw new ExitError(EXIT.usage, '--out - and --json both write to stdout; pick one');
    if (io.isTTY) {
      throw new ExitError(
        EXIT.usage,
        'refusing to write binary bytes to a terminal: redirect stdout (--out - > file) or give --out FILE',
      );
    }
    if (!io.stdoutBytes) throw new ExitError(EXIT.usage, '--out - needs a byte stream on stdout');
    return;
  }
  if (!flags.force && (await exists(flags.out))) {
    throw new ExitError(EXIT.usage, `${flags.out} already exists; pass --force to overwrite it`);
  }
}

/** What `--out` wrote. */
export interface Written {
  readonly field: BinaryField;
  readonly target: string;
  readonly size: number;
}

/**
 * Writes the main binary field of a succeeded result to the `--out` target (`-`: stdout). Undefined
 * without `--out`, for an answer that is not `succeeded`, or a result with nothing binary in it
 * ({@link reportOut} says so).
 */
export async function writeOut(
  answer: { readonly status: string; readonly result?: unknown },
  flags: OutFlags,
  io: CommandIO,
): Promise<Written | undefined> {
  const target = flags.out;
  if (target === undefined || answer.status !== 'succeeded') return undefined;
  const field = mainBinaryField(answer.result, binaryFields(answer.result));
  if (field === undefined) return undefined;
  const bytes = Buffer.from(field.base64, 'base64');
  if (target === '-') io.stdoutBytes?.(bytes);
  else {
    // 'wx' fails if the file appeared since the check: never overwrite without --force.
    await writeFile(target, bytes, { flag: flags.force ? 'w' : 'wx' }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'EEXIST') {
          throw new ExitError(EXIT.usage, `${target} already exists; pass --force to overwrite it`);
        }
        throw new ExitError(EXIT.usage, `cannot write ${target}: ${error.code ?? error.message}`);
      },
    );
  }
  return { field, target, size: bytes.length };
}

/**
 * The last line of an `--out` run: where the bytes went and their size (on stderr when stdout holds
 * JSON), or why nothing was written. A succeeded result without binary content exits 2 (after the
 * result was printed, so nothing is lost).
 */
export function reportOut(
  answer: { readonly status: string },
  written: Written | undefined,
  flags: OutFlags,
  io: CommandIO,
): void {
  if (flags.out === undefined) return;
  const print = flags.json ? io.stderr : io.stdout;
  const where = flags.out === '-' ? 'stdout' : flags.out;
  if (written) {
    print(
      `wrote ${flags.out === '-' ? `${formatSize(written.size)} to stdout` : `${where} (${formatSize(written.size)})`}\n`,
    );
  } else if (answer.status !== 'succeeded') {
    io.stderr(`nothing written to ${where}: the call is ${answer.status}\n`);
  } else {
    throw new ExitError(EXIT.usage, `the result holds no base64 content; nothing written to ${where}`);
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
