import { type GatewayHandle, loadConfig, startGateway } from '@agw/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessClient } from './helpers/access-client.js';
import { adminFetch, readOperatorKeyFile } from './helpers/admin-fixtures.js';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';
import type { GatewayFixture } from './helpers/gateway.js';
import { approvedInstallation } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';

// Two gateway instances on one PostgreSQL and one Redis: rate limits and cache invalidation are shared.
const shared = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const LIMIT = 6;
const read = { id: 'core.org.current.get', params: {} };

describe.skipIf(!shared)('two instances on one PostgreSQL + Redis', () => {
  let environment: TestEnvironment;
  let a: GatewayHandle;
  let b: GatewayHandle;
  let clientA: AccessClient;
  let clientB: AccessClient;
  let operatorKey: string;

  beforeAll(async () => {
    environment = await createTestEnvironment();
    const config = loadConfig({ ...environment.env, RATE_LIMIT_PER_CAPABILITY_PER_MINUTE: String(LIMIT) });
    a = await startGateway(config);
    b = await startGateway(config);
    clientA = new AccessClient(a.url);
    clientB = new AccessClient(b.url);
    operatorKey = await readOperatorKeyFile(environment.dataDir);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await environment?.cleanup();
  });

  const onboarded = () => approvedInstallation({ client: clientA, knex: a.knex } as GatewayFixture);
  const invokeOn = (client: AccessClient, key: string) =>
    client.post('/mcp/invoke', read, { key, idem: null });

  it('one budget across both: the limit holds in total, and both refuse past it', async () => {
    const { key } = await onboarded();
    const statuses: number[] = [];
    for (let call = 0; call < LIMIT + 4; call += 1) {
      statuses.push((await invokeOn(call % 2 === 0 ? clientA : clientB, key)).status);
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(LIMIT);
    expect(statuses.slice(LIMIT)).toEqual([429, 429, 429, 429]);
    const onB = await invokeOn(clientB, key);
    expect(onB.headers.get('ratelimit')).toMatch(/^"capability";r=0;t=\d+$/);
  });

  it('a block and a deactivation through A are refused by B on its next request', async () => {
    const { key, installationId, organizationId } = await onboarded();
    expect((await invokeOn(clientB, key)).status).toBe(200);
    // B caches the state: a change behind the gateways' back is not seen.
    await a.knex('organizations').where({ id: organizationId }).update({ is_active: false });
    expect((await invokeOn(clientB, key)).status).toBe(200);
    await a.knex('organizations').where({ id: organizationId }).update({ is_active: true });

    const admin = (path: string) => adminFetch(`${a.url}${path}`, operatorKey, { body: {} });
    expect((await admin(`/admin/installations/${installationId}/block`)).status).toBe(200);
    expectEnvelope((await invokeOn(clientB, key)).json, 'installation_blocked');
    expect((await admin(`/admin/installations/${installationId}/approve`)).status).toBe(200);
    expect((await invokeOn(clientB, key)).status).toBe(200);
    expect((await admin(`/admin/organizations/${organizationId}/deactivate`)).status).toBe(200);
    expectEnvelope((await invokeOn(clientB, key)).json, 'organization_inactive');
  });

  it('a kill switch turned on through A is refused by B on its next request', async () => {
    const { key, organizationId } = await onboarded();
    expect((await invokeOn(clientB, key)).status).toBe(200);
    const policy = (body: unknown) =>
      adminFetch(`${a.url}/admin/policies/${organizationId}`, operatorKey, { body });
    expect((await policy({ kill_switch_enabled: true })).status).toBe(200);
    expect(expectEnvelope((await invokeOn(clientB, key)).json, 'forbidden').message).toMatch(/kill switch/);
    expect((await policy({ kill_switch_enabled: false })).status).toBe(200);
    expect((await invokeOn(clientB, key)).status).toBe(200);
  });

  it('a key rotated through A is refused by B on its next request', async () => {
    const { key } = await onboarded();
    expect((await invokeOn(clientB, key)).status).toBe(200);
    const rotated = await clientA.post('/keys/rotate', {}, { key });
    expect(rotated.status).toBe(201);
    expectEnvelope((await invokeOn(clientB, key)).json, 'api_key_revoked');
    expect((await invokeOn(clientB, rotated.json.key.token as string)).status).toBe(200);
  });
});
