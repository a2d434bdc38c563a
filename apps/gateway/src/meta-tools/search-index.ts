import type { RiskLevel } from '@agw/contracts';
import { type CatalogContract, catalogDigest, groupVersions } from './catalog.js';

/** Field weights of a whole-token match; a prefix match counts half. */
export const FIELD_WEIGHTS = Object.freeze({ id: 8, tag: 4, domain: 3, summary: 1 });
/** A prefix match (query `doc` for `document`) counts this share of the field's weight. */
export const PREFIX_FACTOR = 0.5;

/** The search index holds fewer capability ids than this. */
export const MAX_INDEXED_IDS = 2 ** 20;

/** Risk levels, lowest first: `risk_level_max` keeps everything up to and including its rank. */
export const riskRank: Readonly<Record<RiskLevel, number>> = { low: 0, medium: 1, high: 2, critical: 3 };

/** The posting list of one token: which entries contain it, with their best field weight. */
interface Posting {
  readonly entries: Int32Array;
  readonly weights: Float64Array;
}

/**
 * The search index over one catalog snapshot, built once at start: one entry per capability id (its
 * default version), sorted by id, with an inverted index of tokens to entries.
 */
export interface SearchIndex {
  /** One contract per id (the version an omitted `version` resolves to), sorted by id. */
  readonly entries: readonly CatalogContract[];
  /** Entry position by id, for the exact-id rule. */
  readonly positionById: ReadonlyMap<string, number>;
  /** Token → posting list. */
  readonly postings: ReadonlyMap<string, Posting>;
  /** Every indexed token in code-point order, for prefix lookups by binary search. */
  readonly terms: readonly string[];
  /** Risk rank per entry. */
  readonly risks: Uint8Array;
  /** See `catalogDigest`: bound into cursors. */
  readonly digest: string;
}

/** Lowercase words of letters and digits (`create_draft` → `create`, `draft`). */
export function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((token) => token.length > 0);
}

/**
 * Builds the index of a catalog: every version of an id collapses to the version an omitted
 * `version` resolves to. Takes the list as a parameter so tests and benchmarks can index synthetic
 * catalogs.
 */
export function buildSearchIndex(catalog: readonly CatalogContract[]): SearchIndex {
  const entries = groupVersions(catalog).defaults;
  // The ranking packs an entry's position into 20 bits (see search.ts).
  if (entries.length >= MAX_INDEXED_IDS)
    throw new Error(`a search index holds fewer than ${MAX_INDEXED_IDS} ids`);
  const weightsByToken = new Map<string, Map<number, number>>();
  const add = (token: string, entry: number, weight: number) => {
    let byEntry = weightsByToken.get(token);
    if (!byEntry) {
      byEntry = new Map();
      weightsByToken.set(token, byEntry);
    }
    if ((byEntry.get(entry) ?? 0) < weight) byEntry.set(entry, weight);
  };
  entries.forEach((contract, entry) => {
    for (const token of tokenize(contract.id)) add(token, entry, FIELD_WEIGHTS.id);
    for (const token of contract.tags.flatMap(tokenize)) add(token, entry, FIELD_WEIGHTS.tag);
    for (const token of tokenize(contract.domain)) add(token, entry, FIELD_WEIGHTS.domain);
    for (const token of tokenize(contract.summary)) add(token, entry, FIELD_WEIGHTS.summary);
  });
  const postings = new Map<string, Posting>();
  for (const [token, byEntry] of weightsByToken) {
    postings.set(token, {
      entries: Int32Array.from(byEntry.keys()),
      weights: Float64Array.from(byEntry.values()),
    });
  }
  return {
    entries,
    positionById: new Map(entries.map((contract, entry) => [contract.id, entry])),
    postings,
    terms: [...postings.keys()].sort(),
    risks: Uint8Array.from(entries.map((contract) => riskRank[contract.risk_level])),
    digest: catalogDigest(catalog),
  };
}

/** The first position in sorted `terms` whose term is not below `prefix`. */
export function lowerBound(terms: readonly string[], prefix: string): number {
  let low = 0;
  let high = terms.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((terms[middle] as string) < prefix) low = middle + 1;
    else high = middle;
  }
  return low;
}
