import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { requireTool } from '../../../../tests/helpers/require-tool.js';

const run = promisify(execFile);

/**
 * Why the PDF checks cannot run here (Debian's qpdf and poppler-utils are missing), or undefined.
 * `npm test` installs them (scripts/ensure-test-tools.mjs); a test skips with this reason otherwise,
 * except in CI (`CI` set), where a missing tool throws (tests/helpers/require-tool.ts): a CI run must
 * never pass with its PDF checks silently skipped.
 */
export function pdfChecksSkipReason(): string | undefined {
  return requireTool('qpdf', 'pdffonts', 'pdftotext', 'pdfinfo');
}

/** Runs `tool` with `args(file)` on `bytes` written to a temporary file; answers its stdout. */
export async function onPdf(bytes: Buffer, tool: string, args: (file: string) => string[]): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'agw-pdf-'));
  try {
    const file = join(directory, 'document.pdf');
    await writeFile(file, bytes);
    return (await run(tool, args(file), { maxBuffer: 32 * 1024 * 1024 })).stdout;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** The fonts `pdffonts` lists, each with whether it is embedded. */
export async function fontsOf(bytes: Buffer): Promise<{ name: string; embedded: boolean }[]> {
  const lines = (await onPdf(bytes, 'pdffonts', (file) => [file])).split('\n').slice(2).filter(Boolean);
  return lines.map((line) => {
    const columns = line.trim().split(/\s+/);
    return { name: columns[0] as string, embedded: columns.at(-5) === 'yes' };
  });
}

/** The text of each page (`pdftotext -layout`, split at form feeds). */
export async function pagesOf(bytes: Buffer): Promise<string[]> {
  const text = await onPdf(bytes, 'pdftotext', (file) => ['-layout', file, '-']);
  return text.split('\f').filter((page) => page.trim() !== '');
}
