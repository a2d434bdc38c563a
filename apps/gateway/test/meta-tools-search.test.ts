// POST /mcp/search_capabilities over real HTTP: ranking, filters, limits, paging with signed cursors,
// and `access` for anonymous and keyed callers.

import { capabilityContracts, compareText } from '@agw/contracts';
import { type GatewayHandle, issueKey, loadConfig, startGateway } from '@agw/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessClient, type Answer, onboard } from './helpers/access-client.js';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';
import { expectEnvelope, expectSchema } from './helpers/http.js';

let environment: TestEnvironment;
let gateway: GatewayHandle;
let client: AccessClient;
/** An installation key with every default scope. */
let fullKey: string;
/** An installation key without `billing:read`. */
let narrowKey: string;

const allIds = capabilityContracts.map((c) => c.id).sort(compareText);

beforeAll(async () => {
  environment = await createTestEnvironment();
  gateway = await startGateway(loadConfig(environment.env), { catalog: capabilityContracts });
  client = new AccessClient(gateway.url);
  const flow = await onboard(client);
  fullKey = flow.installationKey;
  const installation = await gateway.knex('installations').where({ id: flow.installationId }).first();
  narrowKey = await gateway.knex.transaction(async (trx) => {
    const issued = await issueKey(trx, {
      kind: 'installation',
      scopes: ['core:read', 'billing:write', 'calendar:write'],
      ttlSeconds: 3600,
      installationId: flow.installationId,
      organizationId: installation.organization_id,
    });
    return issued.token;
  });
});

afterAll(async () => {
  await gateway?.close();
  await environment?.cleanup();
});

async function search(body: unknown, key?: string): Promise<Answer> {
  const answer = await client.post('/mcp/search_capabilities', body, { idem: null, ...(key ? { key } : {}) });
  if (answer.status === 200) expectSchema('SearchCapabilitiesResponse', answer.json);
  else expectSchema('ErrorEnvelope', answer.json);
  return answer;
}

const ids = (answer: Answer): string[] => answer.json.results.map((item: { id: string }) => item.id);

describe('search_capabilities', () => {
  it('lists every capability in id order without a query, 10 per page by default', async () => {
    const answer = await search({});
    expect(answer.status).toBe(200);
    expect(answer.json.interface_version).toBe('1.0');
    expect(answer.json.total).toBe(allIds.length);
    expect(ids(answer)).toEqual(allIds.slice(0, 10));
    expect(typeof answer.json.next_cursor).toBe('string');
    const first = answer.json.results[0];
    const contract = capabilityContracts.find((c) => c.id === first.id);
    expect(first).toEqual({
      id: contract?.id,
      version: contract?.version,
      summary: contract?.summary,
      domain: contract?.domain,
      risk_level: contract?.risk_level,
      access: expect.any(String),
    });
  });

  it('puts the exact id first, then the most relevant', async () => {
    const exact = await search({ query: 'Billing.Document.Read' });
    expect(ids(exact)[0]).toBe('billing.document.read');
    const words = await search({ query: 'billing document', limit: 50 });
    const billingDocuments = allIds.filter((id) => id.startsWith('billing.document.'));
    expect(ids(words).slice(0, billingDocuments.length).sort(compareText)).toEqual(billingDocuments);
    const budget = await search({ query: 'budget' });
    expect(ids(budget)[0]).toBe('wallet.agent_budget.guard.check');
    const prefix = await search({ query: 'pay' });
    expect(ids(prefix).length).toBeGreaterThan(0);
    expect(ids(prefix).every((id) => id.startsWith('billing.'))).toBe(true);
    const none = await search({ query: 'xylophone' });
    expect(none.json).toMatchObject({ results: [], total: 0, next_cursor: null });
  });

  it('filters by domain and by maximum risk level', async () => {
    const calendar = await search({ domain: 'calendar', limit: 50 });
    const calendarIds = capabilityContracts.filter((c) => c.domain === 'calendar').map((c) => c.id);
    expect(calendar.json.total).toBe(calendarIds.length);
    expect(ids(calendar)).toEqual(calendarIds.sort(compareText));
    const medium = await search({ risk_level_max: 'medium', limit: 50 });
    const lowOrMedium = capabilityContracts.filter(
      (c) => c.risk_level === 'low' || c.risk_level === 'medium',
    );
    expect(medium.json.total).toBe(lowOrMedium.length);
    expect(medium.json.total).toBeLessThan(allIds.length);
    for (const item of medium.json.results) expect(['low', 'medium']).toContain(item.risk_level);
    const both = await search({ query: 'document', domain: 'documents', risk_level_max: 'low' });
    expect(both.json.total).toBe(0);
    expect((await search({ domain: 'nosuchdomain' })).json.total).toBe(0);
  });

  it('keeps limit within 1 to 50 and refuses unknown or oversized fields with 400', async () => {
    expect((await search({ limit: 50 })).json.results).toHaveLength(Math.min(50, allIds.length));
    expect((await search({ limit: 1 })).json.results).toHaveLength(1);
    for (const [body, pointer] of [
      [{ limit: 0 }, '/limit'],
      [{ limit: 51 }, '/limit'],
      [{ limit: 2.5 }, '/limit'],
      [{ query: 'x'.repeat(201) }, '/query'],
      [{ cursor: 'x'.repeat(513) }, '/cursor'],
      [{ risk_level_max: 'extreme' }, '/risk_level_max'],
      [{ sort: 'id' }, ''],
    ] as const) {
      const answer = await search(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      const error = expectEnvelope(answer.json, 'validation_failed');
      expect(String(error.schema_pointer)).toContain(pointer);
    }
  });

  it('pages through all results with next_cursor: same order, no duplicates, no omissions', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const answer: Answer = await search({ limit: 7, ...(cursor ? { cursor } : {}) });
      expect(answer.status).toBe(200);
      expect(answer.json.total).toBe(allIds.length);
      seen.push(...ids(answer));
      cursor = answer.json.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(Math.ceil(allIds.length / 7));
    expect(seen).toEqual(allIds);

    const ranked = await search({ query: 'billing read', limit: 50 });
    const paged: string[] = [];
    let next: string | null = null;
    do {
      // The page size may change between pages; the order may not.
      const answer: Answer = await search({
        query: 'billing read',
        limit: 3,
        ...(next ? { cursor: next } : {}),
      });
      paged.push(...ids(answer));
      next = answer.json.next_cursor;
    } while (next);
    expect(paged).toEqual(ids(ranked));
  });

  it('refuses a modified cursor and a cursor reused with another query or filter with 400 invalid_cursor', async () => {
    const first = await search({ query: 'billing', limit: 2 });
    const cursor = first.json.next_cursor as string;
    const [payload, mac] = cursor.split('.') as [string, string];
    const flip = (text: string, at: number) =>
      `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
    for (const modified of [
      `${flip(payload, 5)}.${mac}`,
      `${payload}.${flip(mac, 3)}`,
      `${payload}.${mac}x`,
      `${Buffer.from('{"v":1,"o":0}').toString('base64url')}.${mac}`,
      'not-a-cursor',
      '',
    ]) {
      const answer = await search({ query: 'billing', cursor: modified });
      expect(answer.status, modified).toBe(400);
      expectEnvelope(answer.json, 'invalid_cursor');
    }
    for (const other of [{ query: 'calendar' }, { query: 'billing', domain: 'billing' }, {}]) {
      const answer = await search({ ...other, cursor });
      expect(answer.status).toBe(400);
      expect(expectEnvelope(answer.json, 'invalid_cursor').message).toMatch(/another query or filter/);
    }
    const resumed = await search({ query: ' BILLING ', cursor });
    expect(resumed.status).toBe(200);
  });

  it('computes access per caller: anonymous against the default scopes, keyed against the key', async () => {
    const accessOf = (answer: Answer) =>
      Object.fromEntries(
        answer.json.results.map((item: { id: string; access: string }) => [item.id, item.access]),
      );
    const anonymous = accessOf(await search({ limit: 50 }));
    expect(anonymous['billing.document.read']).toBe('allowed');
    expect(anonymous['core.org.current.get']).toBe('allowed');
    expect(anonymous['billing.payment.record']).toBe('approval_always');

    const full = accessOf(await search({ limit: 50 }, fullKey));
    expect(full).toEqual(anonymous);

    const narrow = accessOf(await search({ limit: 50 }, narrowKey));
    expect(narrow['billing.document.read']).toBe('scope_missing');
    expect(narrow['documents.document.upload']).toBe('scope_missing');
    expect(narrow['core.org.current.get']).toBe('allowed');
    expect(narrow['billing.payment.record']).toBe('approval_always');
  });

  it('refuses a present but invalid key with 401 instead of answering anonymously', async () => {
    const last = fullKey.at(-1) === 'a' ? 'b' : 'a';
    const tampered = await search({}, `${fullKey.slice(0, -1)}${last}`);
    expect(tampered.status).toBe(401);
    expectEnvelope(tampered.json, 'invalid_api_key');
    const response = await fetch(`${gateway.url}/mcp/search_capabilities`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Basic abc' },
      body: '{}',
    });
    expect(response.status).toBe(401);
  });
});
