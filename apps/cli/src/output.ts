import Table from 'cli-table3';
import { createColors } from 'picocolors';
import type { CommandIO } from './io.js';

/** Colour functions; identity when colour is off. */
export type Colors = ReturnType<typeof createColors>;

/** Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function colorsFor(io: CommandIO, env: Readonly<Record<string, string | undefined>>): Colors {
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  return createColors(io.isTTY === true && !noColor);
}

// Borderless: columns separated by two spaces, a rule under the header, nothing else.
const PLAIN_CHARS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
};

/**
 * Renders rows as an aligned table (cli-table3 measures display width, so colour codes and wide
 * characters do not break alignment). Returns the text with a trailing newline.
 */
export function renderTable(
  headers: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  colors: Colors,
): string {
  const table = new Table({
    head: headers.map((header) => colors.bold(header)),
    chars: PLAIN_CHARS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  for (const row of rows) table.push([...row]);
  return `${table.toString().replace(/[ \t]+$/gm, '')}\n`;
}

/** Renders `label: value` pairs as two aligned columns. */
export function renderFields(fields: ReadonlyArray<readonly [string, string]>, colors: Colors): string {
  const width = Math.max(0, ...fields.map(([label]) => label.length));
  return fields.map(([label, value]) => `${colors.dim(`${label.padEnd(width)}`)}  ${value}\n`).join('');
}

/** Writes a value as indented JSON (the `--json` output: one document per command). */
export function writeJson(io: CommandIO, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/** A duration in seconds as a short human age: `45s`, `12m`, `5h`, `3d`. */
export function formatAge(seconds: number): string {
  if (seconds < 60) return `${Math.max(0, Math.floor(seconds))}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/** An ISO timestamp shortened for tables (`2026-11-22 05:49`), or `-`. */
export function formatTime(value: string | null | undefined): string {
  if (!value) return '-';
  return value.replace('T', ' ').slice(0, 16);
}

/** A cap as `wallet show` and the lists print it: the amount, or a dimmed `none`. */
export function capText(cap: string | null, colors: Colors): string {
  return cap ?? colors.dim('none');
}

/** The line after a page that has a next one (empty on the last page). */
export function nextPageHint(cursor: string | null | undefined, colors: Colors): string {
  return cursor ? colors.dim(`More: add --cursor ${cursor}\n`) : '';
}
