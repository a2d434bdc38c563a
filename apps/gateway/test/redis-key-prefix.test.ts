import { type GatewayHandle, loadConfig, startGateway } from '@agw/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';

// Gateways with different databases on one Redis: REDIS_KEY_PREFIX keeps their buckets apart (a public
// route's bucket is keyed by the client's address, the same for every gateway a client reaches), and
// gateways that share a prefix share the buckets.
const READS_PER_MINUTE = 2;

describe.skipIf(!process.env.REDIS_URL)('REDIS_KEY_PREFIX on one shared Redis', () => {
  const environments: TestEnvironment[] = [];
  const gateways: GatewayHandle[] = [];
  let first: GatewayHandle;
  let other: GatewayHandle;
  let samePrefix: GatewayHandle;

  beforeAll(async () => {
    const start = async (prefix?: string) => {
      const environment = await createTestEnvironment();
      environments.push(environment);
      const env: Record<string, string> = {
        ...environment.env,
        CALENDAR_READS_PER_MINUTE: String(READS_PER_MINUTE),
      };
      if (prefix !== undefined) env.REDIS_KEY_PREFIX = prefix;
      const gateway = await startGateway(loadConfig(env));
      gateways.push(gateway);
      return gateway;
    };
    first = await start();
    other = await start();
    samePrefix = await start(environments[0]?.env.REDIS_KEY_PREFIX);
  });
  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
    for (const environment of environments) await environment.cleanup();
  });

  const slots = async (gateway: GatewayHandle) =>
    (await fetch(`${gateway.url}/book/no-such-link/slots`)).status;

  it('a spent bucket on one gateway leaves another prefix alone and binds the same prefix', async () => {
    expect(environments[0]?.env.REDIS_KEY_PREFIX).not.toBe(environments[1]?.env.REDIS_KEY_PREFIX);
    const statuses = [await slots(first), await slots(first), await slots(first)];
    expect(statuses).toEqual([404, 404, 429]);
    expect(await slots(other)).toBe(404);
    expect(await slots(samePrefix)).toBe(429);
  });
});
