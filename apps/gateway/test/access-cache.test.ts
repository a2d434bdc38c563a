import { describe, expect, it } from 'vitest';
import { adminFetch } from './helpers/admin-fixtures.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';

// One instance (PGlite or PostgreSQL; with REDIS_URL the invalidation goes through Redis pub/sub).
const gateway = useGateway();
const read = { id: 'core.org.current.get', params: {} };
const invoke = (key: string) => gateway.client.post('/mcp/invoke', read, { key, idem: null });
const admin = (path: string) => adminFetch(`${gateway.url}${path}`, gateway.operatorKey, { body: {} });

describe('key and installation cache of the invoke chain', () => {
  it('serves cached state until a change through the gateway drops it, at once', async () => {
    const { key, installationId, organizationId } = await approvedInstallation(gateway);
    expect((await invoke(key)).status).toBe(200);

    // A change written behind the gateway's back is not seen within the TTL: the state is cached.
    await gateway.knex('organizations').where({ id: organizationId }).update({ is_active: false });
    expect((await invoke(key)).status).toBe(200);
    await gateway.knex('organizations').where({ id: organizationId }).update({ is_active: true });

    // The operator's block goes through the gateway: the very next invoke is refused.
    expect((await admin(`/admin/installations/${installationId}/block`)).status).toBe(200);
    const blocked = await invoke(key);
    expect(blocked.status).toBe(403);
    expectEnvelope(blocked.json, 'installation_blocked');
    expect((await admin(`/admin/installations/${installationId}/approve`)).status).toBe(200);
    expect((await invoke(key)).status).toBe(200);

    expect((await admin(`/admin/organizations/${organizationId}/deactivate`)).status).toBe(200);
    expectEnvelope((await invoke(key)).json, 'organization_inactive');
    expect((await admin(`/admin/organizations/${organizationId}/activate`)).status).toBe(200);
    expect((await invoke(key)).status).toBe(200);
  });

  it('a rotated key is refused on the next invoke; the new one works at once', async () => {
    const { key } = await approvedInstallation(gateway);
    expect((await invoke(key)).status).toBe(200);
    const rotated = await gateway.client.post('/keys/rotate', {}, { key });
    expect(rotated.status).toBe(201);
    const old = await invoke(key);
    expect(old.status).toBe(401);
    expectEnvelope(old.json, 'api_key_revoked');
    expect((await invoke(rotated.json.key.token as string)).status).toBe(200);
  });
});
