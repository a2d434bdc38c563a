// The timer of the background tasks (the charge roll-up, the audit sealer, the domains' tasks): idle it
// runs every interval; after a run that found work, sooner — so under load the charge roll-up keeps the
// unrolled charges every wallet snapshot sums few.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../src/logger.js';
import { createPeriodicTask } from '../src/periodic.js';

const logger = { error: vi.fn() } as unknown as Logger;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('a periodic task', () => {
  it('runs again after the busy interval while a run finds work, after the interval once it does not', async () => {
    const found = [true, true, true, false, false];
    const ranAt: number[] = [];
    const task = createPeriodicTask({
      intervalMs: 1000,
      busyIntervalMs: 100,
      logger,
      failure: 'test task failed',
      run: async () => {
        ranAt.push(Date.now());
        return found.shift();
      },
    });
    const start = Date.now();
    task.start();
    await vi.advanceTimersByTimeAsync(1350);
    expect(ranAt.map((at) => at - start)).toEqual([1000, 1100, 1200, 1300]);
    // The fourth run found nothing: the fifth waits the whole interval.
    await vi.advanceTimersByTimeAsync(900);
    expect(ranAt).toHaveLength(4);
    await vi.advanceTimersByTimeAsync(100);
    expect(ranAt.map((at) => at - start)).toEqual([1000, 1100, 1200, 1300, 2300]);
    vi.useRealTimers();
    await task.stop();
  });

  it('waits the whole interval after a failed run, and logs it', async () => {
    const ranAt: number[] = [];
    const task = createPeriodicTask({
      intervalMs: 1000,
      busyIntervalMs: 100,
      logger,
      failure: 'test task failed',
      run: async () => {
        ranAt.push(Date.now());
        if (ranAt.length === 1) throw new Error('database gone');
        return true;
      },
    });
    const start = Date.now();
    task.start();
    await vi.advanceTimersByTimeAsync(2050);
    expect(ranAt.map((at) => at - start)).toEqual([1000, 2000]);
    expect(logger.error).toHaveBeenCalledWith(
      expect.objectContaining({ err: expect.any(Error) }),
      'test task failed',
    );
    vi.useRealTimers();
    await task.stop();
  });

  it('without a busy interval, runs every interval whatever a run reports (the sealer, the domains)', async () => {
    const ranAt: number[] = [];
    const task = createPeriodicTask({
      intervalMs: 500,
      logger,
      failure: 'test task failed',
      run: async () => {
        ranAt.push(Date.now());
        return true;
      },
    });
    const start = Date.now();
    task.start();
    await vi.advanceTimersByTimeAsync(1600);
    expect(ranAt.map((at) => at - start)).toEqual([500, 1000, 1500]);
    vi.useRealTimers();
    await task.stop();
  });
});
