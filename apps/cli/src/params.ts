import { readFile } from 'node:fs/promises';
import { EXIT, ExitError } from './io.js';

/**
 * Reads the `[params]` argument of dry-run and invoke: a JSON object given inline, `@file` (a file
 * holding it) or `-` (stdin); omitted means `{}`. Exit 2 with a clear message for unreadable files,
 * invalid JSON, or JSON that is not an object.
 */
export async function parseParams(
  argument: string | undefined,
  readStdin: () => Promise<string>,
): Promise<Record<string, unknown>> {
  if (argument === undefined) return {};
  let source: string;
  let text: string;
  if (argument === '-') {
    source = 'stdin';
    text = await readStdin();
  } else if (argument.startsWith('@')) {
    const path = argument.slice(1);
    source = path;
    text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new ExitError(EXIT.usage, `cannot read params file ${path}: ${error.code ?? error.message}`);
    });
  } else {
    source = 'the params argument';
    text = argument;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ExitError(
      EXIT.usage,
      `params in ${source} are not valid JSON: ${(error as Error).message} (example: '{"amount": 5}')`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ExitError(EXIT.usage, `params in ${source} must be a JSON object, got ${describe(value)}`);
  }
  return value as Record<string, unknown>;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
