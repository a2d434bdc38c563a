import type { Clock } from '../ports.js';

/** The real clock. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock that moves only when told to, for tests and simulations. */
export interface ManualClock extends Clock {
  set(time: Date | string): void;
  advance(seconds: number): void;
}

/** Creates a {@link ManualClock} starting at `start` (ISO string or Date). */
export function createManualClock(start: Date | string = '2026-01-01T00:00:00.000Z'): ManualClock {
  let current = new Date(start).getTime();
  if (Number.isNaN(current)) throw new RangeError(`Not a time: ${String(start)}`);
  return {
    now: () => new Date(current),
    set(time) {
      current = new Date(time).getTime();
    },
    advance(seconds) {
      current += seconds * 1000;
    },
  };
}
