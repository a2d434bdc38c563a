import type { ArtifactRow, VersionRow } from './sql.js';

const iso = (value: Date | null) => (value === null ? null : new Date(value).toISOString());

/** An artifact as the capabilities answer it; `content` only when it was read. */
export function artifactRecord(row: ArtifactRow) {
  return {
    id: row.id,
    title: row.title,
    artifact_type: row.artifact_type,
    source_type: row.source_type,
    content_format: row.content_format,
    current_version: row.current_version,
    sha256: row.sha256,
    size_bytes: row.size_bytes,
    metadata: row.metadata,
    archived: row.archived_at !== null,
    archived_at: iso(row.archived_at),
    created_at: iso(row.created_at) as string,
    updated_at: iso(row.updated_at) as string,
    ...(row.content === undefined || row.content === null ? {} : { content: row.content }),
  };
}

/** A version as the capabilities answer it; `content` only when it was read. */
export function versionRecord(row: VersionRow) {
  return {
    version: row.version,
    sha256: row.sha256,
    size_bytes: row.size_bytes,
    content_format: row.content_format,
    installation_id: row.installation_id,
    created_at: iso(row.created_at) as string,
    ...(row.content === undefined ? {} : { content: row.content }),
  };
}
