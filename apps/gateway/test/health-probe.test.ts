// Pins the /health probe's sharing: concurrent and closely following probes share one check run, and a
// probe after the window runs the checks again (so a dependency going down shows within a second).
import { describe, expect, it } from 'vitest';
import { createHealthProbe, type HealthChecks } from '../src/checks/health.js';

const checks = (status: 'ok' | 'down'): HealthChecks => ({
  database: { status, driver: 'pglite' },
  redis: { status: 'not_configured' },
  mail: { status: 'ok', transport: 'dev_mailbox' },
});

describe('createHealthProbe', () => {
  it('runs the checks once for every probe inside the window, and again after it', async () => {
    let clock = 0;
    let runs = 0;
    let next: 'ok' | 'down' = 'ok';
    const probe = createHealthProbe(
      async () => {
        runs += 1;
        return checks(next);
      },
      { maxAgeMs: 1000, now: () => clock },
    );

    const concurrent = await Promise.all([probe(), probe(), probe()]);
    expect(runs).toBe(1);
    expect(concurrent.map((result) => result.database.status)).toEqual(['ok', 'ok', 'ok']);

    next = 'down';
    clock = 999;
    expect((await probe()).database.status).toBe('ok');
    clock = 1000;
    expect((await probe()).database.status).toBe('down');
    expect(runs).toBe(2);
  });
});
