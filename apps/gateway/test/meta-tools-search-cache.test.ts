// The search cache (rankings, cursors, result items kept between requests) answers exactly what an
// uncached search answers, stays within its bounds, and the cached key lookup of keyed searches still
// refuses a key the moment it is rotated.

import { randomBytes } from 'node:crypto';
import { capabilityContracts, type RiskLevel, type SearchCapabilitiesRequest } from '@agw/contracts';
import {
  buildSearchIndex,
  type CatalogContract,
  createCursorCodec,
  GatewayError,
  SecretBox,
  searchCapabilities,
} from '@agw/gateway';
import { describe, expect, it } from 'vitest';
import { rankingKey, serializeSearchResponse } from '../src/meta-tools/search.js';
import { createSearchCache, type SearchCache } from '../src/meta-tools/search-cache.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';

const base = capabilityContracts[0] as CatalogContract;
const WORDS = ['invoice', 'payment', 'document', 'calendar', 'booking', 'report'];
const RISKS: RiskLevel[] = ['low', 'medium', 'high', 'critical'];

/** `size` capabilities over 10 domains with overlapping words, so ranks tie a lot. */
function catalogOf(size: number): CatalogContract[] {
  return Array.from({ length: size }, (_, i) => ({
    ...base,
    id: `dom${i % 10}.${WORDS[i % WORDS.length]}${Math.floor(i / 60)}.run${i % 7}`,
    domain: `dom${i % 10}`,
    version: '1.0.0',
    summary: `handles a ${WORDS[(i * 5) % WORDS.length]} of item ${i}`,
    tags: [WORDS[(i * 3) % WORDS.length] as string],
    risk_level: RISKS[i % 4] as RiskLevel,
    scopes: i % 5 === 0 ? ['billing:write'] : [],
  }));
}

const index = buildSearchIndex(catalogOf(3000));
const cursors = createCursorCodec(new SecretBox(randomBytes(32)));
const scopes = new Set<string>();

type Search = Omit<SearchCapabilitiesRequest, 'cursor' | 'limit'>;

/** Every page of `request`, following next_cursor. */
function pages(request: Search, limit: number, cache?: SearchCache) {
  const answers = [];
  let cursor: string | undefined;
  do {
    const page = searchCapabilities(
      index,
      { ...request, limit, ...(cursor ? { cursor } : {}) },
      { cursors, scopes, ...(cache ? { cache } : {}) },
    );
    answers.push(page);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return answers;
}

function expectInvalidCursor(action: () => unknown, message: RegExp): void {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(GatewayError);
  expect((thrown as GatewayError).code).toBe('invalid_cursor');
  expect((thrown as GatewayError).message).toMatch(message);
}

const searches: Search[] = [
  {},
  { query: 'invoice' },
  { query: '  Payment REPORT of ' },
  { query: 'pay', domain: 'dom3' },
  { query: 'booking', risk_level_max: 'medium' },
  { query: 'dom4.invoice0.run3' },
];

describe('search cache', () => {
  it('answers the same pages and cursors as an uncached search, the first time and when repeated', () => {
    const cache = createSearchCache(index, cursors);
    for (const request of searches) {
      const uncached = pages(request, 23);
      expect(uncached.length, JSON.stringify(request)).toBeGreaterThan(1);
      expect(pages(request, 23, cache)).toEqual(uncached);
      expect(pages(request, 23, cache)).toEqual(uncached);
    }
    expect(cache.size.entries).toBe(searches.length);
  });

  it('serializes an answer exactly like JSON.stringify, last and empty pages included', () => {
    const cache = createSearchCache(index, cursors);
    const answers = [
      ...pages({ query: 'report' }, 50, cache),
      ...pages({ query: 'nothing-matches' }, 10, cache),
    ];
    expect(answers.at(-1)?.results).toEqual([]);
    for (const answer of answers) expect(serializeSearchResponse(answer, cache)).toBe(JSON.stringify(answer));
  });

  it('keeps `access` per caller when result items are shared', () => {
    const cache = createSearchCache(index, cursors);
    const request = { query: 'invoice', limit: 50 };
    const anonymous = searchCapabilities(index, request, { cursors, scopes, cache });
    const keyed = new Set(['billing:write']);
    const withScope = searchCapabilities(index, request, { cursors, scopes: keyed, cache });
    expect(withScope).toEqual(searchCapabilities(index, request, { cursors, scopes: keyed }));
    expect(anonymous).toEqual(searchCapabilities(index, request, { cursors, scopes }));
    expect(anonymous.results.map((item) => item.access)).toContain('scope_missing');
    expect(withScope.results.map((item) => item.access)).not.toContain('scope_missing');
  });

  it('resumes a cursor issued without the cache, and one issued with it, at the same page', () => {
    const cache = createSearchCache(index, cursors);
    const request = { query: 'calendar', limit: 10 };
    const fromPlain = searchCapabilities(index, request, { cursors, scopes }).next_cursor as string;
    const fromCache = searchCapabilities(index, request, { cursors, scopes, cache }).next_cursor as string;
    const second = searchCapabilities(index, { ...request, cursor: fromPlain }, { cursors, scopes });
    expect(searchCapabilities(index, { ...request, cursor: fromPlain }, { cursors, scopes, cache })).toEqual(
      second,
    );
    expect(searchCapabilities(index, { ...request, cursor: fromCache }, { cursors, scopes, cache })).toEqual(
      second,
    );
  });

  it('still refuses a modified cursor, or one of another search, when both searches are cached', () => {
    const cache = createSearchCache(index, cursors);
    const options = { cursors, scopes, cache };
    const cursor = searchCapabilities(index, { query: 'invoice', limit: 5 }, options).next_cursor as string;
    searchCapabilities(index, { query: 'payment' }, options);
    expectInvalidCursor(
      () => searchCapabilities(index, { query: 'payment', cursor }, options),
      /another query or filter/,
    );
    const [payload, mac] = cursor.split('.') as [string, string];
    const forged = `${payload}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`;
    expectInvalidCursor(
      () => searchCapabilities(index, { query: 'invoice', cursor: forged }, options),
      /not one this gateway/,
    );
    const other = createCursorCodec(new SecretBox(randomBytes(32)));
    const foreign = searchCapabilities(index, { query: 'invoice', limit: 5 }, { cursors: other, scopes })
      .next_cursor as string;
    expectInvalidCursor(
      () => searchCapabilities(index, { query: 'invoice', cursor: foreign }, options),
      /not one this gateway/,
    );
  });

  it('keeps at most maxEntries searches, dropping the least recently used', () => {
    const cache = createSearchCache(index, cursors, { maxEntries: 2 });
    const run = (query: string) => searchCapabilities(index, { query }, { cursors, scopes, cache });
    run('invoice');
    run('payment');
    run('invoice'); // now the most recently used
    run('report'); // drops payment
    expect(cache.size.entries).toBe(2);
    expect(cache.get(rankingKey({ query: 'invoice' }))).toBeDefined();
    expect(cache.get(rankingKey({ query: 'payment' }))).toBeUndefined();
    expect(cache.get(rankingKey({ query: 'report' }))).toBeDefined();
  });

  it('keeps at most maxPositions ranked positions, and answers a larger search without keeping it', () => {
    const cache = createSearchCache(index, cursors, { maxPositions: 1500 });
    const everything = searchCapabilities(index, { limit: 50 }, { cursors, scopes, cache });
    expect(everything.total).toBe(3000);
    expect(cache.size).toEqual({ entries: 0, positions: 0 });
    expect(everything).toEqual(searchCapabilities(index, { limit: 50 }, { cursors, scopes }));
    for (const query of ['invoice', 'payment', 'document', 'calendar', 'booking', 'report']) {
      searchCapabilities(index, { query }, { cursors, scopes, cache });
      expect(cache.size.positions).toBeLessThanOrEqual(1500);
    }
    expect(cache.size.entries).toBeGreaterThan(0);
    expect(cache.size.entries).toBeLessThan(6);
  });

  it('refuses a cache built for another index', () => {
    const cache = createSearchCache(buildSearchIndex(catalogOf(10)), cursors);
    expect(() => searchCapabilities(index, {}, { cursors, scopes, cache })).toThrow(/another index/);
  });
});

describe('keyed search with cached key records (HTTP)', () => {
  const gateway = useGateway();
  const post = (path: string, body: unknown, key: string) =>
    gateway.client.post(path, body, { key, idem: null });

  it('refuses a rotated key on the next search and describe; the new key works at once', async () => {
    const { key } = await approvedInstallation(gateway);
    expect((await post('/mcp/search_capabilities', { query: 'org' }, key)).status).toBe(200);
    expect((await post('/mcp/describe', { id: 'core.org.current.get' }, key)).status).toBe(200);
    const rotated = await gateway.client.post('/keys/rotate', {}, { key });
    expect(rotated.status).toBe(201);
    const old = await post('/mcp/search_capabilities', { query: 'org' }, key);
    expect(old.status).toBe(401);
    expectEnvelope(old.json, 'api_key_revoked');
    expectEnvelope(
      (await post('/mcp/describe', { id: 'core.org.current.get' }, key)).json,
      'api_key_revoked',
    );
    const fresh = rotated.json.key.token as string;
    const answer = await post('/mcp/search_capabilities', { query: 'org' }, fresh);
    expect(answer.status).toBe(200);
    expect(answer.json.results.length).toBeGreaterThan(0);
  });
});
