import type { SqlStatement } from '../sql.js';

export interface ArtifactRow {
  readonly id: string;
  readonly title: string;
  readonly artifact_type: string;
  readonly source_type: string | null;
  readonly content_format: 'text' | 'markdown' | 'json';
  readonly current_version: number;
  readonly content?: string;
  readonly sha256: string;
  readonly size_bytes: number;
  readonly metadata: Record<string, unknown>;
  readonly archived_at: Date | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

export interface VersionRow {
  readonly version: number;
  readonly content?: string;
  readonly content_format: 'text' | 'markdown' | 'json';
  readonly sha256: string;
  readonly size_bytes: number;
  readonly installation_id: string | null;
  readonly created_at: Date;
}

const ARTIFACT_COLUMNS = `id, title, artifact_type, source_type, content_format, current_version, sha256, size_bytes,
  metadata, archived_at, created_at, updated_at`;
const VERSION_COLUMNS = 'version, content_format, sha256, size_bytes, installation_id, created_at';

/** The artifact with its current content. $1 organization, $2 id. */
export const selectArtifact: SqlStatement = {
  name: 'assist.artifact.select',
  text: `select ${ARTIFACT_COLUMNS}, content from assist_artifacts where organization_id = $1 and id = $2`,
};

/**
 * The same, locked until the transaction ends: concurrent saves of one artifact take turns, so each
 * reads the version the one before it wrote and numbers stay consecutive. $1 organization, $2 id.
 */
export const selectArtifactForUpdate: SqlStatement = {
  name: 'assist.artifact.select_for_update',
  text: `select ${ARTIFACT_COLUMNS}, content from assist_artifacts where organization_id = $1 and id = $2 for update`,
};

/**
 * A new artifact at version 1. $1 id, $2 organization, $3 title, $4 type, $5 source type, $6 format,
 * $7 content, $8 sha256, $9 size, $10 metadata (json text), $11 installation, $12 now.
 */
export const insertArtifact: SqlStatement = {
  name: 'assist.artifact.insert',
  text: `insert into assist_artifacts (id, organization_id, title, artifact_type, source_type, content_format,
  current_version, content, sha256, size_bytes, metadata, created_by_installation_id, created_at, updated_at)
values ($1, $2, $3, $4, $5, $6, 1, $7, $8, $9, $10::jsonb, $11, $12, $12)
returning ${ARTIFACT_COLUMNS}`,
};

/**
 * The artifact's current state after a save. $1 organization, $2 id, $3 title, $4 type, $5 source type,
 * $6 format, $7 version, $8 content, $9 sha256, $10 size, $11 metadata (json text), $12 now.
 */
export const updateArtifact: SqlStatement = {
  name: 'assist.artifact.update',
  text: `update assist_artifacts set title = $3, artifact_type = $4, source_type = $5, content_format = $6,
  current_version = $7, content = $8, sha256 = $9, size_bytes = $10, metadata = $11::jsonb, updated_at = $12
where organization_id = $1 and id = $2
returning ${ARTIFACT_COLUMNS}`,
};

/** $1 organization, $2 artifact, $3 version, $4 content, $5 format, $6 sha256, $7 size, $8 installation, $9 now. */
export const insertVersion: SqlStatement = {
  name: 'assist.version.insert',
  text: `insert into assist_artifact_versions (organization_id, artifact_id, version, content, content_format, sha256,
  size_bytes, installation_id, created_at)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
returning ${VERSION_COLUMNS}`,
};

/** $1 organization, $2 artifact, $3 version. */
export const selectVersion: SqlStatement = {
  name: 'assist.version.select',
  text: `select ${VERSION_COLUMNS}, content from assist_artifact_versions
where organization_id = $1 and artifact_id = $2 and version = $3`,
};

/** Newest first, without content. $1 organization, $2 artifact, $3 limit. */
export const selectVersions: SqlStatement = {
  name: 'assist.version.select_recent',
  text: `select ${VERSION_COLUMNS} from assist_artifact_versions
where organization_id = $1 and artifact_id = $2 order by version desc limit $3`,
};

/** Archive (a time) or unarchive (null). $1 organization, $2 id, $3 archived_at, $4 now. */
export const setArchived: SqlStatement = {
  name: 'assist.artifact.set_archived',
  text: `update assist_artifacts set archived_at = $3, updated_at = $4 where organization_id = $1 and id = $2
returning ${ARTIFACT_COLUMNS}`,
};

/**
 * One page of artifacts, newest change first; every filter a nullable parameter. $1 organization,
 * $2 tsquery or null, $3 type or null, $4 source type or null, $5 include archived, $6 include content,
 * $7 limit, $8 offset. Unnamed on purpose: planned with its values bound, a null filter costs nothing
 * (a prepared generic plan cannot tell which filters are null).
 */
export const LIST_ARTIFACTS = `select ${ARTIFACT_COLUMNS}, case when $6::boolean then content end as content from assist_artifacts
where organization_id = $1
  and ($2::text is null or search_vector @@ to_tsquery('simple'::regconfig, $2::text))
  and ($3::text is null or artifact_type = $3)
  and ($4::text is null or source_type = $4)
  and ($5::boolean or archived_at is null)
order by updated_at desc, id limit $7 offset $8`;
