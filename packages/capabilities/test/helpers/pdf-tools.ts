import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Why the PDF checks cannot run here (Debian's qpdf and poppler-utils are missing), or undefined.
 * `npm test` installs them (scripts/ensure-test-tools.mjs); a test skips with this reason otherwise.
 */
export function pdfToolsMissing(): string | undefined {
  for (const tool of ['qpdf', 'pdffonts', 'pdftotext', 'pdfinfo']) {
    try {
      execFileSync(tool, ['-v'], { stdio: 'ignore' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return `${tool} is not installed`;
    }
  }
  return undefined;
}

/**
 * The reason to skip the PDF checks here, or undefined when the tools are present. In CI
 * (`process.env.CI` set) the test setup installs them, so a missing tool throws instead: a CI run
 * must never pass with its PDF checks silently skipped.
 */
export function pdfChecksSkipReason(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const missing = pdfToolsMissing();
  if (missing !== undefined && env.CI) {
    throw new Error(
      `The PDF checks cannot run in CI: ${missing}. Install Debian's qpdf and poppler-utils (scripts/ensure-test-tools.mjs does as root).`,
    );
  }
  return missing;
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
