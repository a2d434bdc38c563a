import { contractOf } from '../contract-of.js';
import { defineCapabilityHandler } from '../define.js';
import { runStatement } from '../sql.js';
import { artifactNotFound } from './contract.js';
import { artifactRecord, versionRecord } from './records.js';
import { type ArtifactRow, selectArtifact, selectVersion, selectVersions, type VersionRow } from './sql.js';

interface ReadInput {
  readonly artifact_id: string;
  readonly include_versions?: boolean;
  readonly version_limit?: number;
  readonly version?: number;
}

/**
 * `assist.artifact.read`: the artifact with its current content, or with the content of `version`
 * (then `content_version` says which); `include_versions` adds the newest `version_limit` (default 10)
 * versions without their content (read one with `version`).
 */
export const assistArtifactReadHandler = defineCapabilityHandler<ReadInput, unknown>({
  contract: contractOf('assist.artifact.read'),
  async handle(input, ctx) {
    const org = ctx.organizationId;
    const row = (await runStatement<ArtifactRow>(ctx.sql, selectArtifact, [org, input.artifact_id])).rows[0];
    if (row === undefined) artifactNotFound(input.artifact_id);
    let artifact = { ...artifactRecord(row), content_version: row.current_version };
    if (input.version !== undefined && input.version !== row.current_version) {
      const earlier = (await runStatement<VersionRow>(ctx.sql, selectVersion, [org, row.id, input.version]))
        .rows[0];
      if (earlier === undefined) {
        artifactNotFound(`${input.artifact_id} version ${input.version} (it has ${row.current_version})`);
      }
      artifact = { ...artifact, content: earlier.content as string, content_version: earlier.version };
    }
    const versions = input.include_versions
      ? (
          await runStatement<VersionRow>(ctx.sql, selectVersions, [org, row.id, input.version_limit ?? 10])
        ).rows.map(versionRecord)
      : [];
    return { artifact, versions };
  },
});
