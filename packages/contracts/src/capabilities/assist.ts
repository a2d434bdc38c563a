import { Type } from '@sinclair/typebox';
import { DisplayText } from '../schemas/display-text.js';
import { FreeObject, Nullable, Timestamp, Uuid } from '../schemas/primitives.js';
import {
  Input,
  Limit,
  NullableString,
  OneOf,
  Output,
  PageInfo,
  PageOf,
  PagingQuery,
  Text,
} from './common.js';
import { defineCapability } from './types.js';

/** assist.artifact.list: assistant artifacts, searchable. */
export const assistArtifactList = defineCapability({
  id: 'assist.artifact.list',
  version: '1.0.0',
  summary: 'List assistant artifacts, optionally filtered by text, artifact type and source type.',
  tags: ['assist', 'artifact', 'list'],
  risk_level: 'low',
  scopes: ['assist:read'],
  cost_credits: '0',
  mutating: false,
  dry_run: 'supported',
  input_schema: Input({
    query: Type.Optional(Text(1, 160)),
    artifact_type: Type.Optional(Text(1, 80)),
    source_type: Type.Optional(Text(1, 80)),
    include_archived: Type.Optional(Type.Boolean()),
    include_content: Type.Optional(Type.Boolean()),
    ...PagingQuery(),
  }),
  output_schema: Output({ items: PageOf(FreeObject()), ...PageInfo() }),
});

/** Most versions one read lists. */
const MAX_VERSIONS_READ = 50;

/** assist.artifact.read: one artifact with its versions. */
export const assistArtifactRead = defineCapability({
  id: 'assist.artifact.read',
  version: '1.0.0',
  summary: 'Read one assistant artifact, optionally with its versions.',
  tags: ['assist', 'artifact', 'read'],
  risk_level: 'low',
  scopes: ['assist:read'],
  cost_credits: '0',
  mutating: false,
  dry_run: 'supported',
  input_schema: Input({
    artifact_id: Uuid(),
    include_versions: Type.Optional(Type.Boolean()),
    version_limit: Type.Optional(Limit(MAX_VERSIONS_READ)),
    /** Read this earlier version's content instead of the current one (beyond the spec). */
    version: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  }),
  output_schema: Output({
    artifact: FreeObject(),
    versions: Type.Array(FreeObject(), {
      maxItems: MAX_VERSIONS_READ,
      description: `The newest \`version_limit\` versions (at most ${MAX_VERSIONS_READ}).`,
    }),
  }),
});

/** How an artifact's content is to be read. */
export const ARTIFACT_CONTENT_FORMATS = ['text', 'markdown', 'json'] as const;

/** Largest content of one artifact version, in UTF-8 bytes (256 KiB). */
export const MAX_ARTIFACT_CONTENT_BYTES = 256 * 1024;

/** One version of an artifact as save and archive answer it (without its content). */
const ArtifactVersionRecord = () =>
  Output({
    version: Type.Integer({ minimum: 1 }),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    size_bytes: Type.Integer({ minimum: 0 }),
    content_format: OneOf(ARTIFACT_CONTENT_FORMATS),
    installation_id: Nullable(Uuid()),
    created_at: Timestamp(),
  });

/** An artifact as save and archive answer it (its current content is read with assist.artifact.read). */
const ArtifactRecord = () =>
  Output({
    id: Uuid(),
    title: Type.String(),
    artifact_type: Type.String(),
    source_type: NullableString(),
    content_format: OneOf(ARTIFACT_CONTENT_FORMATS),
    current_version: Type.Integer({ minimum: 1 }),
    sha256: Type.String(),
    size_bytes: Type.Integer({ minimum: 0 }),
    metadata: FreeObject(),
    archived: Type.Boolean(),
    archived_at: Nullable(Timestamp()),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  });

/** assist.artifact.save (beyond the spec): create an artifact, or a new version of one. */
export const assistArtifactSave = defineCapability({
  id: 'assist.artifact.save',
  version: '1.0.0',
  summary:
    'Create an assistant artifact (draft, summary, plan, text) or save a new version of one; unchanged content makes no version.',
  tags: ['assist', 'artifact', 'save', 'version'],
  risk_level: 'low',
  scopes: ['assist:write'],
  cost_credits: '0',
  mutating: true,
  dry_run: 'supported',
  input_schema: Input({
    /** Absent: a new artifact. Present: a new version of this one. */
    artifact_id: Type.Optional(Uuid()),
    /** Required for a new artifact; given with artifact_id it renames it. */
    title: Type.Optional(DisplayText(1, 300)),
    artifact_type: Type.Optional(Text(1, 80)),
    source_type: Type.Optional(Nullable(Text(1, 80))),
    content: Type.String({ maxLength: MAX_ARTIFACT_CONTENT_BYTES }),
    content_format: Type.Optional(OneOf(ARTIFACT_CONTENT_FORMATS)),
    metadata: Type.Optional(FreeObject()),
  }),
  output_schema: Output({
    artifact: ArtifactRecord(),
    version: ArtifactVersionRecord(),
    created: Type.Boolean(),
    version_created: Type.Boolean(),
  }),
});

/** assist.artifact.archive (beyond the spec): hide an artifact from lists, or bring it back. */
export const assistArtifactArchive = defineCapability({
  id: 'assist.artifact.archive',
  version: '1.0.0',
  summary: 'Archive an assistant artifact (hidden from lists unless include_archived) or unarchive it.',
  tags: ['assist', 'artifact', 'archive'],
  risk_level: 'low',
  scopes: ['assist:write'],
  cost_credits: '0',
  mutating: true,
  dry_run: 'supported',
  input_schema: Input({ artifact_id: Uuid(), archived: Type.Optional(Type.Boolean()) }),
  output_schema: Output({ artifact: ArtifactRecord(), changed: Type.Boolean() }),
});

/** Assist capabilities. */
export const assistCapabilities = [
  assistArtifactList,
  assistArtifactRead,
  assistArtifactSave,
  assistArtifactArchive,
] as const;
