import { contractOf } from '../contract-of.js';
import { defineCapabilityHandler } from '../define.js';
import { searchQuery } from '../text-search.js';
import { artifactRecord } from './records.js';
import { type ArtifactRow, LIST_ARTIFACTS } from './sql.js';

interface ListInput {
  readonly query?: string;
  readonly artifact_type?: string;
  readonly source_type?: string;
  readonly include_archived?: boolean;
  readonly include_content?: boolean;
  readonly limit?: number;
  readonly offset?: number;
}

/**
 * `assist.artifact.list`: newest change first, 20 per page; `query` matches words of the title and the
 * current content (every word, the last as a prefix: search as you type), archived artifacts only with
 * `include_archived`, content only with `include_content`.
 */
export const assistArtifactListHandler = defineCapabilityHandler<ListInput, unknown>({
  contract: contractOf('assist.artifact.list'),
  async handle(input, ctx) {
    const limit = input.limit ?? 20;
    const offset = input.offset ?? 0;
    const { rows } = await ctx.sql.query<ArtifactRow>(LIST_ARTIFACTS, [
      ctx.organizationId,
      searchQuery(input.query),
      input.artifact_type ?? null,
      input.source_type ?? null,
      input.include_archived ?? false,
      input.include_content ?? false,
      limit,
      offset,
    ]);
    return { items: rows.map(artifactRecord), count: rows.length, limit, offset };
  },
});
