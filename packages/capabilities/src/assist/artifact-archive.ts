import { contractOf } from '../contract-of.js';
import { defineCapabilityHandler } from '../define.js';
import { runStatement } from '../sql.js';
import { artifactNotFound } from './contract.js';
import { artifactRecord } from './records.js';
import { type ArtifactRow, selectArtifactForUpdate, setArchived } from './sql.js';

/**
 * `assist.artifact.archive`: `archived` true (the default) hides the artifact from lists unless they
 * ask for archived ones; false brings it back. Versions and content stay; archiving twice changes
 * nothing (`changed: false`, the first archive time kept).
 */
export const assistArtifactArchiveHandler = defineCapabilityHandler<
  { artifact_id: string; archived?: boolean },
  unknown
>({
  contract: contractOf('assist.artifact.archive'),
  async handle(input, ctx) {
    const archive = input.archived ?? true;
    const current = (
      await runStatement<ArtifactRow>(ctx.sql, selectArtifactForUpdate, [
        ctx.organizationId,
        input.artifact_id,
      ])
    ).rows[0];
    if (current === undefined) artifactNotFound(input.artifact_id);
    if ((current.archived_at !== null) === archive) {
      const { content: _content, ...row } = current;
      return { artifact: artifactRecord(row), changed: false };
    }
    const { rows } = await runStatement<ArtifactRow>(ctx.sql, setArchived, [
      ctx.organizationId,
      current.id,
      archive ? ctx.now : null,
      ctx.now,
    ]);
    return { artifact: artifactRecord(rows[0] as ArtifactRow), changed: true };
  },
});
