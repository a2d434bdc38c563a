import { Type } from '@sinclair/typebox';
import { DisplayText } from '../schemas/display-text.js';
import { Described, FreeObject, Nullable, Sha256Hex, Timestamp, Uuid } from '../schemas/primitives.js';
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
    query: Type.Optional(
      Described(
        Text(1, 160),
        'Words matched in the title and current content: every word must occur, the last as a prefix (search as you type).',
        ['launch plan'],
      ),
    ),
    artifact_type: Type.Optional(Described(Text(1, 80), 'Only artifacts of exactly this type.', ['summary'])),
    source_type: Type.Optional(Described(Text(1, 80), 'Only artifacts of exactly this source type.')),
    include_archived: Type.Optional(
      Described(Type.Boolean(), 'Include archived artifacts; false when left out.'),
    ),
    include_content: Type.Optional(
      Described(Type.Boolean(), "Include each artifact's current content; false when left out."),
    ),
    ...PagingQuery(),
  }),
  output_schema: Output({
    items: Described(
      PageOf(FreeObject()),
      'Artifacts, most recently changed first (their content only with include_content).',
    ),
    ...PageInfo(),
  }),
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
    artifact_id: Described(Uuid(), 'The artifact to read.'),
    include_versions: Type.Optional(
      Described(Type.Boolean(), 'Also list its newest versions (without their content).'),
    ),
    version_limit: Type.Optional(
      Described(
        Limit(MAX_VERSIONS_READ),
        `How many versions include_versions lists, 1 to ${MAX_VERSIONS_READ}; 10 when left out.`,
      ),
    ),
    version: Type.Optional(
      Described(
        Type.Integer({ minimum: 1, maximum: 1_000_000 }),
        "Read this earlier version's content instead of the current one (content_version then says which).",
      ),
    ),
  }),
  output_schema: Output({
    artifact: FreeObject(
      'The artifact with its content (the current version, or the one asked for) and content_version',
    ),
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

/** How the content is to be read. */
const ContentFormat = () =>
  Described(
    OneOf(ARTIFACT_CONTENT_FORMATS),
    'How to read the content: text (plain), markdown, or json (the content must then be a JSON text).',
  );

/** One version of an artifact as save and archive answer it (without its content). */
const ArtifactVersionRecord = () =>
  Output({
    version: Described(Type.Integer({ minimum: 1 }), 'Version number, from 1, one more per changed save.'),
    sha256: Described(Sha256Hex(), "SHA-256 of the version's content (UTF-8)."),
    size_bytes: Described(Type.Integer({ minimum: 0 }), 'Size of the content in UTF-8 bytes.'),
    content_format: ContentFormat(),
    installation_id: Described(
      Nullable(Uuid()),
      'The agent installation that saved the version; null when unknown.',
    ),
    created_at: Described(Timestamp(), 'When the version was saved.'),
  });

/** An artifact as save and archive answer it (its current content is read with assist.artifact.read). */
const ArtifactRecord = () =>
  Output({
    id: Described(Uuid(), 'Id of the artifact; pass it as artifact_id to read, save a version or archive.'),
    title: Described(Type.String(), 'Title of the artifact.'),
    artifact_type: Described(Type.String(), 'Kind of artifact, chosen by the caller.', [
      'note',
      'summary',
      'plan',
    ]),
    source_type: Described(
      NullableString(),
      'What the artifact was made from, chosen by the caller; null when not given.',
      ['email'],
    ),
    content_format: ContentFormat(),
    current_version: Described(Type.Integer({ minimum: 1 }), 'Number of the newest version.'),
    sha256: Described(Type.String(), "SHA-256 of the current version's content, lower-case hex."),
    size_bytes: Described(Type.Integer({ minimum: 0 }), 'Size of the current content in UTF-8 bytes.'),
    metadata: FreeObject('Caller data kept with the artifact'),
    archived: Described(Type.Boolean(), 'True when hidden from lists (assist.artifact.archive).'),
    archived_at: Described(Nullable(Timestamp()), 'When it was archived; null when not archived.'),
    created_at: Described(Timestamp(), 'When the artifact was created.'),
    updated_at: Described(Timestamp(), 'When it last changed.'),
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
    artifact_id: Type.Optional(
      Described(Uuid(), 'Left out: a new artifact (version 1). Given: a new version of this artifact.'),
    ),
    title: Type.Optional(
      Described(DisplayText(1, 300), 'Required for a new artifact; given with artifact_id it renames it.'),
    ),
    artifact_type: Type.Optional(
      Described(Text(1, 80), 'Kind of artifact, your choice; note when left out on create.', [
        'summary',
        'plan',
      ]),
    ),
    source_type: Type.Optional(
      Described(Nullable(Text(1, 80)), 'What it was made from, your choice.', ['email']),
    ),
    content: Described(
      Type.String({ maxLength: MAX_ARTIFACT_CONTENT_BYTES }),
      `The full content of this version, at most ${MAX_ARTIFACT_CONTENT_BYTES} UTF-8 bytes; identical content makes no new version.`,
    ),
    content_format: Type.Optional(
      Described(ContentFormat(), "text for a new artifact, else the current version's, when left out."),
    ),
    metadata: Type.Optional(
      FreeObject('Caller data kept with the artifact (changes in place, makes no version)'),
    ),
  }),
  output_schema: Output({
    artifact: Described(ArtifactRecord(), 'The artifact after the save.'),
    version: Described(
      ArtifactVersionRecord(),
      'The version the content is now at (the new one, or the unchanged current one).',
    ),
    created: Described(Type.Boolean(), 'True when a new artifact was created.'),
    version_created: Described(
      Type.Boolean(),
      'True when the save made a new version; false when the content was unchanged.',
    ),
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
  input_schema: Input({
    artifact_id: Described(Uuid(), 'The artifact to archive or bring back.'),
    archived: Type.Optional(
      Described(
        Type.Boolean(),
        'true (default) hides it from lists; false brings it back. Versions and content stay.',
      ),
    ),
  }),
  output_schema: Output({
    artifact: Described(ArtifactRecord(), 'The artifact after the call.'),
    changed: Described(
      Type.Boolean(),
      'False when it already was in the state asked for (the first archive time is kept).',
    ),
  }),
});

/** Assist capabilities. */
export const assistCapabilities = [
  assistArtifactList,
  assistArtifactRead,
  assistArtifactSave,
  assistArtifactArchive,
] as const;
