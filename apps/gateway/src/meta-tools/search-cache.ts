import type { CapabilityAccess, SearchResultItem } from '@agw/contracts';
import { toSearchResultItem } from '@agw/contracts';
import { LRUCache } from 'lru-cache';
import { asCapabilityContract } from './catalog.js';
import type { CursorCodec } from './cursor.js';
import type { SearchIndex } from './search-index.js';

/**
 * One search's full ranking over an index, with the cursors already issued for it. The catalog never
 * changes within a process, so a ranking stays valid for as long as it is cached.
 */
export interface CachedRanking {
  /** Positions into `index.entries`, best first. */
  readonly ranked: Int32Array;
  /** `searchFingerprint` of the filters: bound into this search's cursors. */
  readonly fingerprint: string;
  /** The offset of a cursor this gateway issued for this search, or undefined (then decode it). */
  offsetOf(cursor: string): number | undefined;
  /** The cursor of the page starting at `offset`, signed once and reused. */
  cursorAt(offset: number): string;
}

/** Bounds of a {@link SearchCache}. */
export interface SearchCacheOptions {
  /** At most this many cached searches (least recently used dropped first). Default 1 024. */
  readonly maxEntries?: number;
  /**
   * At most this many ranked positions over all cached searches (4 bytes each; a search finding
   * everything in a 10 000-capability catalog holds 10 000). Default 2 097 152 (8 MiB).
   */
  readonly maxPositions?: number;
}

/** Rankings by search and result items by capability and access, for one index and cursor codec. */
export interface SearchCache {
  /** The index the rankings were computed over. */
  readonly index: SearchIndex;
  /** The codec the remembered cursors were signed with. */
  readonly cursors: CursorCodec;
  /** The cached ranking of `key` (see `rankingKey` in search.ts), marked most recently used. */
  get(key: string): CachedRanking | undefined;
  /** Caches a ranking; drops the least recently used ones until both bounds hold again. */
  set(key: string, ranked: readonly number[], fingerprint: string): CachedRanking;
  /** The search result item of an entry for an access, built once (frozen: shared by every answer). */
  item(entry: number, access: CapabilityAccess): SearchResultItem;
  /** `JSON.stringify(item)` of an item {@link item} built, serialized once. */
  itemJson(item: SearchResultItem): string;
  /** How many searches and ranked positions are cached (for tests and diagnostics). */
  readonly size: { readonly entries: number; readonly positions: number };
}

// Cursors remembered per search: enough for an agent paging through, bounded against a client that
// asks for every offset with a changing limit.
const MAX_CURSORS_PER_SEARCH = 64;
const ACCESS_SLOTS: Readonly<Record<CapabilityAccess, number>> = {
  allowed: 0,
  approval_always: 1,
  scope_missing: 2,
};

/**
 * A bounded LRU of search rankings over `index` (lru-cache, bounded by entries and by ranked
 * positions), with the cursors `cursors` signed for them.
 */
export function createSearchCache(
  index: SearchIndex,
  cursors: CursorCodec,
  options: SearchCacheOptions = {},
): SearchCache {
  const maxEntries = options.maxEntries ?? 1024;
  const maxPositions = options.maxPositions ?? 2 ** 21;
  const rankings = new LRUCache<string, CachedRanking>({
    max: maxEntries,
    maxSize: maxPositions,
    // lru-cache sizes are positive: a search that found nothing counts as one position.
    sizeCalculation: (ranking) => Math.max(1, ranking.ranked.length),
  });
  const items: (SearchResultItem | undefined)[] = new Array(index.entries.length * 3);
  const itemJson = new WeakMap<SearchResultItem, string>();

  const rankingOf = (ranked: Int32Array, fingerprint: string): CachedRanking => {
    const cursorByOffset = new Map<number, string>();
    const offsetByCursor = new Map<string, number>();
    return {
      ranked,
      fingerprint,
      offsetOf: (cursor) => offsetByCursor.get(cursor),
      cursorAt(offset) {
        let cursor = cursorByOffset.get(offset);
        if (cursor === undefined) {
          cursor = cursors.encode({ offset, fingerprint, catalog: index.digest });
          if (cursorByOffset.size < MAX_CURSORS_PER_SEARCH) {
            cursorByOffset.set(offset, cursor);
            offsetByCursor.set(cursor, offset);
          }
        }
        return cursor;
      },
    };
  };

  return {
    index,
    cursors,
    get: (key) => rankings.get(key),
    set(key, ranked, fingerprint) {
      const ranking = rankingOf(Int32Array.from(ranked), fingerprint);
      // A ranking larger than the whole budget is answered but not kept (lru-cache drops the key).
      rankings.set(key, ranking);
      return ranking;
    },
    item(entry, access) {
      const slot = entry * 3 + ACCESS_SLOTS[access];
      let item = items[slot];
      if (!item) {
        const contract = index.entries[entry];
        if (!contract) throw new Error('ranked entry outside the index');
        item = Object.freeze(toSearchResultItem(asCapabilityContract(contract), access));
        items[slot] = item;
        itemJson.set(item, JSON.stringify(item));
      }
      return item;
    },
    itemJson: (item) => itemJson.get(item) ?? JSON.stringify(item),
    get size() {
      return { entries: rankings.size, positions: rankings.calculatedSize };
    },
  };
}
