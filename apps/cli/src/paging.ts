import { EXIT, ExitError } from './io.js';

/** The page flags of a list command: one page, from `--cursor` on. */
export interface PageFlags {
  readonly limit?: string | undefined;
  readonly cursor?: string | undefined;
}

/** `--limit` as an integer from 1 to `max`; anything else is a usage error before any request. */
export function parseLimit(value: string, max: number): number {
  const limit = /^\d{1,4}$/.test(value) ? Number(value) : Number.NaN;
  if (!(limit >= 1 && limit <= max)) {
    throw new ExitError(EXIT.usage, `--limit must be an integer 1-${max}, got '${value.slice(0, 40)}'`);
  }
  return limit;
}

/** The page request of the admin lists (a limit from 1 to 500). */
export function pageOf(flags: PageFlags): { limit?: number; cursor?: string } {
  return {
    ...(flags.limit === undefined ? {} : { limit: parseLimit(flags.limit, 500) }),
    ...(flags.cursor === undefined ? {} : { cursor: flags.cursor }),
  };
}
