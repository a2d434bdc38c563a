import {
  INTERFACE_VERSION,
  type RiskLevel,
  type SearchCapabilitiesRequest,
  type SearchCapabilitiesResponse,
  type SearchResultItem,
  toSearchResultItem,
} from '@agw/contracts';
import { capabilityAccess } from './access.js';
import { asCapabilityContract } from './catalog.js';
import { type CursorCodec, searchFingerprint } from './cursor.js';
import type { CachedRanking, SearchCache } from './search-cache.js';
import { lowerBound, PREFIX_FACTOR, riskRank, type SearchIndex, tokenize } from './search-index.js';

/** The default page size of search_capabilities. */
export const DEFAULT_SEARCH_LIMIT = 10;

/** What narrows and orders a search (paging aside). */
export interface SearchFilters {
  readonly query?: string | undefined;
  readonly domain?: string | undefined;
  readonly riskLevelMax?: RiskLevel | undefined;
}

// Words that carry no meaning in a capability query; dropped unless the query has nothing else.
const STOP_WORDS = new Set(
  'a an and are as at be by for from in is it its of on or the this that to with'.split(' '),
);

/**
 * Every entry of `index` the search finds, best first (positions into `index.entries`):
 * 1. the capability whose id equals the trimmed, lowercased query;
 * 2. then more distinct query words matched;
 * 3. then a higher score: per query word the best field it matches whole (id word 8, tag 4, domain 3,
 *    summary 1) or by prefix (half of that; words of two or more characters only), summed;
 * 4. then id order, so equal scores always page the same way.
 * Without a query (or one without words) every entry matches, in id order. `domain` is an exact
 * filter, `riskLevelMax` keeps risk levels up to and including it.
 */
export function rankCapabilities(index: SearchIndex, filters: SearchFilters): number[] {
  const maxRisk = filters.riskLevelMax === undefined ? 3 : riskRank[filters.riskLevelMax];
  const keep = (entry: number) =>
    (index.risks[entry] as number) <= maxRisk &&
    (filters.domain === undefined || index.entries[entry]?.domain === filters.domain);

  const normalized = filters.query?.trim().toLowerCase() ?? '';
  const words = [...new Set(tokenize(normalized))];
  const meaningful = words.filter((word) => !STOP_WORDS.has(word));
  const queryWords = meaningful.length > 0 ? meaningful : words;
  if (queryWords.length === 0) {
    const all: number[] = [];
    for (let entry = 0; entry < index.entries.length; entry += 1) if (keep(entry)) all.push(entry);
    return all;
  }

  const size = index.entries.length;
  const scores = new Float64Array(size);
  const coverage = new Uint16Array(size);
  const matched: number[] = [];
  for (const word of queryWords) {
    const best = new Float64Array(size);
    const touched: number[] = [];
    const visit = (token: string, factor: number) => {
      const posting = index.postings.get(token);
      if (!posting) return;
      for (let i = 0; i < posting.entries.length; i += 1) {
        const entry = posting.entries[i] as number;
        const weight = (posting.weights[i] as number) * factor;
        if (best[entry] === 0) touched.push(entry);
        if ((best[entry] as number) < weight) best[entry] = weight;
      }
    };
    visit(word, 1);
    if (word.length >= 2) {
      for (let t = lowerBound(index.terms, word); t < index.terms.length; t += 1) {
        const term = index.terms[t] as string;
        if (!term.startsWith(word)) break;
        if (term !== word) visit(term, PREFIX_FACTOR);
      }
    }
    for (const entry of touched) {
      if (!keep(entry)) continue;
      if (coverage[entry] === 0) matched.push(entry);
      coverage[entry] = (coverage[entry] as number) + 1;
      scores[entry] = (scores[entry] as number) + (best[entry] as number);
    }
  }

  const exact = index.positionById.get(normalized) ?? -1;
  const ranked = sortByRank(matched, coverage, scores);
  if (exact < 0 || !keep(exact)) return ranked;
  return [exact, ...ranked.filter((entry) => entry !== exact)];
}

// Ranks are packed into one float per entry and sorted natively (a comparator sort of thousands of
// entries costs milliseconds): coverage, then doubled score (whole-number weights and a prefix factor
// of 1/2 make it an integer), then the inverted position, so ties fall back to id order.
// 200 query characters hold at most 100 words: coverage ≤ 100 and a doubled score ≤ 1600 < 2048.
const SCORE_SLOTS = 2048;
const POSITION_SLOTS = 2 ** 20;

function sortByRank(matched: readonly number[], coverage: Uint16Array, scores: Float64Array): number[] {
  const keys = new Float64Array(matched.length);
  matched.forEach((entry, i) => {
    const rank = (coverage[entry] as number) * SCORE_SLOTS + Math.round((scores[entry] as number) * 2);
    keys[i] = rank * POSITION_SLOTS + (POSITION_SLOTS - 1 - entry);
  });
  keys.sort();
  const ranked = new Array<number>(keys.length);
  for (let i = 0; i < keys.length; i += 1) {
    ranked[i] = POSITION_SLOTS - 1 - ((keys[keys.length - 1 - i] as number) % POSITION_SLOTS);
  }
  return ranked;
}

/** What {@link searchCapabilities} needs besides the index and the request. */
export interface SearchOptions {
  readonly cursors: CursorCodec;
  /** The caller's scopes, for each result's `access`. */
  readonly scopes: ReadonlySet<string>;
  /**
   * Rankings, cursors and result items kept between requests (created for this index and codec):
   * the catalog is fixed for the process, so a repeated search or its next page ranks nothing again.
   */
  readonly cache?: SearchCache;
}

/**
 * What a ranking depends on: the trimmed, lowercased query and the filters (not the limit or the
 * cursor). The cache key of a search, and the text {@link searchFingerprint} hashes.
 */
export function rankingKey(filters: SearchFilters): string {
  return JSON.stringify([
    filters.query?.trim().toLowerCase() ?? '',
    filters.domain ?? '',
    filters.riskLevelMax ?? '',
  ]);
}

/**
 * One page of search_capabilities for a validated request: ranks (see {@link rankCapabilities}),
 * resumes at the cursor's offset (400 `invalid_cursor` for a cursor of another search or catalog),
 * and signs the cursor of the next page (`null` on the last page). With a cache, a ranking is computed
 * once per search and a cursor this gateway issued for it is recognised without checking its MAC again;
 * the answer is the same as without.
 */
export function searchCapabilities(
  index: SearchIndex,
  request: SearchCapabilitiesRequest,
  options: SearchOptions,
): SearchCapabilitiesResponse {
  const { cache, cursors, scopes } = options;
  if (cache && (cache.index !== index || cache.cursors !== cursors)) {
    throw new Error('the search cache belongs to another index or cursor codec');
  }
  const filters: SearchFilters = {
    query: request.query,
    domain: request.domain,
    riskLevelMax: request.risk_level_max,
  };
  const key = cache ? rankingKey(filters) : '';
  let ranking: CachedRanking | undefined = cache?.get(key);
  const bound = { fingerprint: ranking?.fingerprint ?? searchFingerprint(filters), catalog: index.digest };
  // The cursor is checked before anything is ranked, so a bad cursor costs no ranking.
  const offset =
    request.cursor === undefined
      ? 0
      : (ranking?.offsetOf(request.cursor) ?? cursors.decode(request.cursor, bound));
  if (cache && !ranking) ranking = cache.set(key, rankCapabilities(index, filters), bound.fingerprint);
  const ranked: ArrayLike<number> = ranking ? ranking.ranked : rankCapabilities(index, filters);
  const end = Math.min(offset + (request.limit ?? DEFAULT_SEARCH_LIMIT), ranked.length);
  const results: SearchResultItem[] = [];
  for (let position = offset; position < end; position += 1) {
    const entry = ranked[position] as number;
    const contract = index.entries[entry];
    if (!contract) throw new Error('ranked entry outside the index');
    const access = capabilityAccess(contract, scopes);
    results.push(
      cache ? cache.item(entry, access) : toSearchResultItem(asCapabilityContract(contract), access),
    );
  }
  let nextCursor: string | null = null;
  if (end < ranked.length) {
    nextCursor = ranking ? ranking.cursorAt(end) : cursors.encode({ ...bound, offset: end });
  }
  return { interface_version: INTERFACE_VERSION, results, total: ranked.length, next_cursor: nextCursor };
}

/**
 * The JSON text of a search answer, the same as `JSON.stringify(response)` (same members, same order),
 * with the result items' text taken from the cache: serializing ten to fifty items per request was a
 * measurable share of a cached search.
 */
export function serializeSearchResponse(response: SearchCapabilitiesResponse, cache: SearchCache): string {
  let results = '';
  for (const item of response.results) results += `${results === '' ? '' : ','}${cache.itemJson(item)}`;
  return `{"interface_version":${JSON.stringify(response.interface_version)},"results":[${results}],"total":${response.total},"next_cursor":${JSON.stringify(response.next_cursor)}}`;
}
