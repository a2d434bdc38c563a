import { Type } from '@sinclair/typebox';
import { FreeObject, Uuid } from '../schemas/primitives.js';
import { Input, Limit, Output, PageInfo, PagingQuery, Text } from './common.js';
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
  output_schema: Output({ items: Type.Array(FreeObject()), ...PageInfo() }),
});

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
    version_limit: Type.Optional(Limit(50)),
  }),
  output_schema: Output({ artifact: FreeObject(), versions: Type.Array(FreeObject()) }),
});

/** Assist capabilities. */
export const assistCapabilities = [assistArtifactList, assistArtifactRead] as const;
