// The search index, ranking, cursors and version rules without HTTP: a 10 000-capability synthetic
// catalog pages completely and stably and ranks exactly like a naive reference implementation.

import { randomBytes } from 'node:crypto';
import { capabilityContracts, createValidator, type RiskLevel } from '@agw/contracts';
import {
  buildSearchIndex,
  type CatalogContract,
  compareVersions,
  createCursorCodec,
  GatewayError,
  groupVersions,
  nearestIds,
  rankCapabilities,
  resolveCapability,
  type SearchFilters,
  SecretBox,
  searchCapabilities,
} from '@agw/gateway';
import { describe, expect, it } from 'vitest';

const validator = createValidator();
const base = capabilityContracts[0] as CatalogContract;

/** A capability with the given text fields; schemas borrowed from a real contract. */
function capability(
  id: string,
  fields: Partial<Pick<CatalogContract, 'summary' | 'tags' | 'risk_level' | 'version' | 'status'>> = {},
): CatalogContract {
  return {
    ...base,
    id,
    domain: id.split('.')[0] ?? '',
    version: fields.version ?? '1.0.0',
    summary: fields.summary ?? '',
    tags: fields.tags ?? [],
    risk_level: fields.risk_level ?? 'low',
    scopes: [],
    ...(fields.status === undefined ? {} : { status: fields.status }),
  };
}

const WORDS = ['invoice', 'payment', 'document', 'calendar', 'booking', 'report', 'export', 'reminder'];
const VERBS = ['read', 'list', 'create', 'update', 'delete', 'render', 'send', 'check'];
const RISKS: RiskLevel[] = ['low', 'medium', 'high', 'critical'];

/** 10 000 capabilities over 25 domains with overlapping words, so ranks tie a lot. */
function syntheticCatalog(): CatalogContract[] {
  const catalog: CatalogContract[] = [];
  for (let i = 0; i < 10_000; i += 1) {
    const noun = WORDS[i % WORDS.length] as string;
    const verb = VERBS[Math.floor(i / 8) % VERBS.length] as string;
    catalog.push(
      capability(`dom${i % 25}.${noun}${Math.floor(i / 64)}.${verb}`, {
        summary: `${verb} a ${WORDS[(i * 7) % WORDS.length]} of item ${i}`,
        tags: [noun, i % 3 === 0 ? 'bulk' : 'single'],
        risk_level: RISKS[i % 4] as RiskLevel,
      }),
    );
  }
  return catalog;
}

// A deliberately naive reference: scan every token of every capability for every query word.
function naiveRanking(catalog: readonly CatalogContract[], filters: SearchFilters): string[] {
  const words = [
    ...new Set(
      (filters.query ?? '')
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter(Boolean),
    ),
  ];
  const order = ['low', 'medium', 'high', 'critical'];
  const max = order.indexOf(filters.riskLevelMax ?? 'critical');
  const rows = catalog
    .filter((c) => order.indexOf(c.risk_level) <= max && (!filters.domain || c.domain === filters.domain))
    .map((c) => {
      const fields: [string, number][] = [
        [c.id, 8],
        [c.tags.join(' '), 4],
        [c.domain, 3],
        [c.summary, 1],
      ];
      let coverage = 0;
      let score = 0;
      for (const word of words) {
        let best = 0;
        for (const [text, weight] of fields) {
          for (const token of text.toLowerCase().split(/[^a-z0-9]+/)) {
            if (token === word) best = Math.max(best, weight);
            else if (word.length >= 2 && token.startsWith(word)) best = Math.max(best, weight / 2);
          }
        }
        if (best > 0) coverage += 1;
        score += best;
      }
      return { id: c.id, coverage, score };
    })
    .filter((row) => words.length === 0 || row.coverage > 0);
  return rows
    .sort((a, b) => b.coverage - a.coverage || b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((row) => row.id);
}

describe('search over 10 000 synthetic capabilities', () => {
  const catalog = syntheticCatalog();
  const index = buildSearchIndex(catalog);
  const cursors = createCursorCodec(new SecretBox(randomBytes(32)));
  const scopes = new Set<string>();

  /** Follows next_cursor to the end; returns every id in page order. */
  function pageThrough(
    request: { query?: string; domain?: string; risk_level_max?: RiskLevel },
    limit: number,
  ) {
    const ids: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = searchCapabilities(
        index,
        { ...request, limit, ...(cursor ? { cursor } : {}) },
        { cursors, scopes },
      );
      expect(validator.validate('SearchCapabilitiesResponse', page)).toEqual({ valid: true });
      expect(page.results.length).toBeLessThanOrEqual(limit);
      ids.push(...page.results.map((item) => item.id));
      cursor = page.next_cursor ?? undefined;
      pages += 1;
      if (cursor) expect(cursor.length).toBeLessThanOrEqual(512);
    } while (cursor);
    return { ids, pages };
  }

  it('pages through everything in id order without a query, with no duplicates or omissions', () => {
    const { ids, pages } = pageThrough({}, 50);
    expect(pages).toBe(200);
    expect(ids).toEqual(catalog.map((c) => c.id).sort());
  });

  it('ranks like the reference implementation, and the pages concatenate to that ranking', () => {
    for (const filters of [
      { query: 'invoice check' },
      { query: 'pay bulk', riskLevelMax: 'medium' as const },
      { query: 'doc', domain: 'dom7' },
      { query: 'render report' },
    ]) {
      const expected = naiveRanking(catalog, filters);
      expect(expected.length).toBeGreaterThan(0);
      expect(rankCapabilities(index, filters).map((entry) => index.entries[entry]?.id)).toEqual(expected);
      const request = {
        ...(filters.query ? { query: filters.query } : {}),
        ...(filters.domain ? { domain: filters.domain } : {}),
        ...(filters.riskLevelMax ? { risk_level_max: filters.riskLevelMax } : {}),
      };
      const { ids } = pageThrough(request, 37);
      expect(ids).toEqual(expected);
      expect(new Set(ids).size).toBe(ids.length);
      const first = searchCapabilities(index, request, { cursors, scopes });
      expect(first.total).toBe(expected.length);
    }
  });

  it('answers the same pages for the same request (stable order)', () => {
    const one = searchCapabilities(index, { query: 'check', limit: 50 }, { cursors, scopes });
    const two = searchCapabilities(index, { query: 'check', limit: 50 }, { cursors, scopes });
    expect(two).toEqual(one);
  });
});

describe('ranking rules', () => {
  it('puts an exact id first even when another id would win the tie by id order', () => {
    const index = buildSearchIndex([
      capability('core.get.org'),
      capability('core.org.get'),
      capability('core.org.list'),
    ]);
    const ranked = rankCapabilities(index, { query: '  Core.Org.Get ' }).map((e) => index.entries[e]?.id);
    expect(ranked).toEqual(['core.org.get', 'core.get.org', 'core.org.list']);
    const words = rankCapabilities(index, { query: 'core org get' }).map((e) => index.entries[e]?.id);
    expect(words[0]).toBe('core.get.org');
  });

  it('weights id words over tags over summary, and whole words over prefixes', () => {
    const index = buildSearchIndex([
      capability('aaa.thing.read', { summary: 'mentions invoice here' }),
      capability('bbb.thing.read', { tags: ['invoice'] }),
      capability('ccc.invoice.read'),
      capability('ddd.invoices.read'),
    ]);
    const ranked = rankCapabilities(index, { query: 'invoice' }).map((e) => index.entries[e]?.id);
    // id word 8; a whole tag (4) ties with an id prefix (8 / 2) and falls back to id order; summary 1.
    expect(ranked).toEqual(['ccc.invoice.read', 'bbb.thing.read', 'ddd.invoices.read', 'aaa.thing.read']);
  });

  it('ranks matching more query words above a higher score on fewer words, and ignores stop words', () => {
    const index = buildSearchIndex([
      capability('pay.payment.record', { tags: ['payment'] }),
      capability('zzz.other.thing', { summary: 'record of a payment' }),
    ]);
    const ranked = rankCapabilities(index, { query: 'a payment record of' }).map((e) => index.entries[e]?.id);
    expect(ranked).toEqual(['pay.payment.record', 'zzz.other.thing']);
    expect(rankCapabilities(index, { query: 'unrelated' })).toEqual([]);
  });
});

describe('cursors', () => {
  const index = buildSearchIndex(capabilityContracts);
  const cursors = createCursorCodec(new SecretBox(randomBytes(32)));
  const scopes = new Set<string>();

  function expectInvalidCursor(action: () => unknown, message: RegExp): void {
    try {
      action();
    } catch (error) {
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).code).toBe('invalid_cursor');
      expect((error as GatewayError).message).toMatch(message);
      return;
    }
    throw new Error('expected invalid_cursor');
  }

  it('refuses a cursor from another catalog snapshot', () => {
    const first = searchCapabilities(index, { limit: 2 }, { cursors, scopes });
    const changed = buildSearchIndex([...capabilityContracts, capability('zzz.new.thing')]);
    const cursor = first.next_cursor as string;
    expectInvalidCursor(
      () => searchCapabilities(changed, { cursor }, { cursors, scopes }),
      /catalog changed/,
    );
  });

  it('refuses a cursor signed with another secret', () => {
    const other = createCursorCodec(new SecretBox(randomBytes(32)));
    const cursor = searchCapabilities(index, { limit: 2 }, { cursors: other, scopes }).next_cursor as string;
    expectInvalidCursor(
      () => searchCapabilities(index, { cursor }, { cursors, scopes }),
      /not one this gateway/,
    );
  });
});

describe('versions and closest ids', () => {
  it('orders versions by semver precedence, not as text', () => {
    expect(['1.10.0', '1.2.0', '0.9.12', '1.2.10'].sort(compareVersions)).toEqual([
      '0.9.12',
      '1.2.0',
      '1.2.10',
      '1.10.0',
    ]);
  });

  it('resolves an omitted version to the latest non-deprecated one, or the latest when all are deprecated', () => {
    const catalog = groupVersions([
      capability('demo.widget.read', { version: '1.2.0' }),
      capability('demo.widget.read', { version: '1.10.0' }),
      capability('demo.widget.read', { version: '2.0.0', status: 'deprecated' }),
      capability('demo.old.read', { version: '1.0.0', status: 'deprecated' }),
      capability('demo.old.read', { version: '1.1.0', status: 'deprecated' }),
    ]);
    expect(resolveCapability(catalog, 'demo.widget.read').version).toBe('1.10.0');
    expect(resolveCapability(catalog, 'demo.widget.read', '2.0.0').version).toBe('2.0.0');
    expect(resolveCapability(catalog, 'demo.old.read').version).toBe('1.1.0');
  });

  it('names the closest ids: shared segments first, then edit distance', () => {
    const ids = capabilityContracts.map((c) => c.id);
    expect(nearestIds(ids, 'billing.documnet.read')[0]).toBe('billing.document.read');
    expect(nearestIds(ids, 'core.org.get')[0]).toBe('core.org.current.get');
    expect(nearestIds(ids, 'wallet.budget.check')[0]).toBe('wallet.agent_budget.guard.check');
    expect(nearestIds(ids, 'zzz.yyy.xxx')).toHaveLength(3);
  });
});
