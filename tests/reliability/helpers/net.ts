// One free-port finder for the bench and these tests (plain JavaScript, typed by bench/services.d.mts).
export { freePort } from '../../../bench/services.mjs';

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
