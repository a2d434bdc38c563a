import { createHash } from 'node:crypto';
import { MAX_ARTIFACT_CONTENT_BYTES } from '@agw/contracts';
import { contractOf } from '../contract-of.js';
import { type CapabilityContext, CapabilityError, defineCapabilityHandler, preflightOf } from '../define.js';
import { runStatement } from '../sql.js';
import { artifactNotFound } from './contract.js';
import { artifactRecord, versionRecord } from './records.js';
import {
  type ArtifactRow,
  insertArtifact,
  insertVersion,
  selectArtifact,
  selectArtifactForUpdate,
  selectVersion,
  updateArtifact,
  type VersionRow,
} from './sql.js';

interface SaveInput {
  readonly artifact_id?: string;
  readonly title?: string;
  readonly artifact_type?: string;
  readonly source_type?: string | null;
  readonly content: string;
  readonly content_format?: 'text' | 'markdown' | 'json';
  readonly metadata?: Record<string, unknown>;
}

/** Largest metadata object, serialized (16 KiB): it describes the artifact, the content is the artifact. */
const MAX_METADATA_BYTES = 16 * 1024;

function refuse(pointer: string, message: string): never {
  throw new CapabilityError('validation_failed', `${pointer} ${message}`, [
    { schema_pointer: pointer, keyword: 'assist', message },
  ]);
}

/** Bounds the schema cannot state in bytes, and JSON content that must parse. */
function checkInput(input: SaveInput, format: string): { size: number; metadata: string } {
  const size = Buffer.byteLength(input.content, 'utf8');
  if (size > MAX_ARTIFACT_CONTENT_BYTES) {
    refuse(
      '/params/content',
      `is ${size} bytes; at most ${MAX_ARTIFACT_CONTENT_BYTES} bytes (UTF-8) per version`,
    );
  }
  if (format === 'json') {
    try {
      JSON.parse(input.content);
    } catch {
      refuse('/params/content', 'must be a JSON text when content_format is json');
    }
  }
  const metadata = JSON.stringify(input.metadata ?? {});
  if (Buffer.byteLength(metadata, 'utf8') > MAX_METADATA_BYTES) {
    refuse('/params/metadata', `must serialize to at most ${MAX_METADATA_BYTES} bytes`);
  }
  return { size, metadata };
}

/** What a save of `input` does: the checked content, and the version it lands in. */
interface SavePlan {
  readonly format: string;
  readonly size: number;
  readonly metadata: string;
  readonly sha256: string;
  /** The version the artifact is at after the save. */
  readonly version: number;
  /** A new version is written (a new artifact, or changed content or format). */
  readonly versionCreated: boolean;
}

/**
 * The rules of a save of `input` onto `current` (the artifact it names; undefined for a new one, or
 * when it names none): a new artifact needs a title; the content, its format and the metadata keep
 * their bounds. Throws the refusal `handle` answers; shared with the preflight.
 */
function planSave(input: SaveInput, current: ArtifactRow | undefined): SavePlan {
  const sha256 = createHash('sha256').update(input.content, 'utf8').digest('hex');
  if (input.artifact_id === undefined) {
    if (input.title === undefined) refuse('/params/title', 'is required for a new artifact');
    const format = input.content_format ?? 'text';
    return { ...checkInput(input, format), format, sha256, version: 1, versionCreated: true };
  }
  if (current === undefined) artifactNotFound(input.artifact_id);
  const format = input.content_format ?? current.content_format;
  const checked = checkInput({ ...input, metadata: input.metadata ?? current.metadata }, format);
  const changed = sha256 !== current.sha256 || format !== current.content_format;
  const version = changed ? current.current_version + 1 : current.current_version;
  return { ...checked, format, sha256, version, versionCreated: changed };
}

/**
 * `assist.artifact.save`: without `artifact_id` a new artifact at version 1; with it, the artifact's
 * next version when the content (or its format) changed, and none when it is identical (title, type,
 * source and metadata describe the artifact and change in place). The artifact row is locked first,
 * so concurrent saves of one artifact number their versions one after the other, none lost. Its
 * preflight runs the same rules and previews the version the save would land in.
 */
export const assistArtifactSaveHandler = defineCapabilityHandler<SaveInput, unknown>({
  contract: contractOf('assist.artifact.save'),
  async preflight(input, ctx) {
    const current =
      input.artifact_id === undefined
        ? undefined
        : (await runStatement<ArtifactRow>(ctx.sql, selectArtifact, [ctx.organizationId, input.artifact_id]))
            .rows[0];
    return preflightOf(async () => {
      const plan = planSave(input, current);
      return {
        created: input.artifact_id === undefined,
        version_created: plan.versionCreated,
        // Unless another save of the same artifact comes first.
        version: plan.version,
        content_format: plan.format,
        size_bytes: plan.size,
        sha256: plan.sha256,
      };
    }, '/params/artifact_id');
  },
  async handle(input, ctx) {
    const org = ctx.organizationId;
    if (input.artifact_id === undefined) {
      const { format, size, metadata, sha256 } = planSave(input, undefined);
      const id = ctx.ids.uuid();
      const artifact = (
        await runStatement<ArtifactRow>(ctx.sql, insertArtifact, [
          id,
          org,
          input.title,
          input.artifact_type ?? 'note',
          input.source_type ?? null,
          format,
          input.content,
          sha256,
          size,
          metadata,
          ctx.installationId,
          ctx.now,
        ])
      ).rows[0] as ArtifactRow;
      const version = await addVersion(ctx, id, 1, input.content, format, sha256, size);
      return { artifact: artifactRecord(artifact), version, created: true, version_created: true };
    }

    const locked = (
      await runStatement<ArtifactRow>(ctx.sql, selectArtifactForUpdate, [org, input.artifact_id])
    ).rows[0];
    const plan = planSave(input, locked);
    const current = locked as ArtifactRow;
    const { format, size, metadata, sha256, version: number, versionCreated: changed } = plan;
    const described =
      (input.title ?? current.title) !== current.title ||
      (input.artifact_type ?? current.artifact_type) !== current.artifact_type ||
      (input.source_type === undefined ? current.source_type : input.source_type) !== current.source_type ||
      metadata !== JSON.stringify(current.metadata);
    const artifact = (
      await runStatement<ArtifactRow>(ctx.sql, updateArtifact, [
        org,
        current.id,
        input.title ?? current.title,
        input.artifact_type ?? current.artifact_type,
        input.source_type === undefined ? current.source_type : input.source_type,
        format,
        number,
        input.content,
        sha256,
        size,
        metadata,
        changed || described ? ctx.now : current.updated_at,
      ])
    ).rows[0] as ArtifactRow;
    const version = changed
      ? await addVersion(ctx, current.id, number, input.content, format, sha256, size)
      : await currentVersion(ctx, current.id, number);
    return { artifact: artifactRecord(artifact), version, created: false, version_created: changed };
  },
});

async function currentVersion(ctx: CapabilityContext, artifactId: string, number: number) {
  const { rows } = await runStatement<VersionRow>(ctx.sql, selectVersion, [
    ctx.organizationId,
    artifactId,
    number,
  ]);
  const { content: _content, ...row } = rows[0] as VersionRow;
  return versionRecord(row);
}

async function addVersion(
  ctx: CapabilityContext,
  artifactId: string,
  number: number,
  content: string,
  format: string,
  sha256: string,
  size: number,
) {
  const { rows } = await runStatement<VersionRow>(ctx.sql, insertVersion, [
    ctx.organizationId,
    artifactId,
    number,
    content,
    format,
    sha256,
    size,
    ctx.installationId,
    ctx.now,
  ]);
  return versionRecord(rows[0] as VersionRow);
}
