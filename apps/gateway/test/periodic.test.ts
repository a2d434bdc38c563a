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

/** A task whose runs answer `answers` in turn (a throw for an Error), recording when each ran, from its start. */
function recordedTask(
  options: { intervalMs: number; busyIntervalMs?: number },
  answers: Array<boolean | Error>,
) {
  const ranAt: number[] = [];
  const start = Date.now();
  const task = createPeriodicTask({
    ...options,
    logger,
    failure: 'test task failed',
    run: async () => {
      ranAt.push(Date.now() - start);
      const answer = answers.shift() ?? false;
      if (answer instanceof Error) throw answer;
      return answer;
    },
  });
  task.start();
  return {
    ranAt,
    async stop() {
      vi.useRealTimers();
      await task.stop();
    },
  };
}

describe('a periodic task', () => {
  it('runs again after the busy interval while a run finds work, after the interval once it does not', async () => {
    const task = recordedTask({ intervalMs: 1000, busyIntervalMs: 100 }, [true, true, true, false, false]);
    await vi.advanceTimersByTimeAsync(1350);
    expect(task.ranAt).toEqual([1000, 1100, 1200, 1300]);
    // The fourth run found nothing: the fifth waits the whole interval.
    await vi.advanceTimersByTimeAsync(900);
    expect(task.ranAt).toHaveLength(4);
    await vi.advanceTimersByTimeAsync(100);
    expect(task.ranAt).toEqual([1000, 1100, 1200, 1300, 2300]);
    await task.stop();
  });

  it('waits the whole interval after a failed run, and logs it', async () => {
    const task = recordedTask({ intervalMs: 1000, busyIntervalMs: 100 }, [new Error('database gone'), true]);
    await vi.advanceTimersByTimeAsync(2050);
    expect(task.ranAt).toEqual([1000, 2000]);
    expect(logger.error).toHaveBeenCalledWith(
      expect.objectContaining({ err: expect.any(Error) }),
      'test task failed',
    );
    await task.stop();
  });

  it('without a busy interval, runs every interval whatever a run reports (the sealer, the domains)', async () => {
    const task = recordedTask({ intervalMs: 500 }, [true, true, true, true]);
    await vi.advanceTimersByTimeAsync(1600);
    expect(task.ranAt).toEqual([500, 1000, 1500]);
    await task.stop();
  });
});
