import type { CapabilityHandler } from '../define.js';
import type { CapabilityDomain } from '../domain.js';
import { assistArtifactArchiveHandler } from './artifact-archive.js';
import { assistArtifactListHandler } from './artifact-list.js';
import { assistArtifactReadHandler } from './artifact-read.js';
import { assistArtifactSaveHandler } from './artifact-save.js';
import { assistMigrations } from './migrations.js';

/** `assist`: an agent's work products as artifacts with an immutable version history, found by text. */
export const assistDomain: CapabilityDomain = {
  name: 'assist',
  handlers: [
    assistArtifactSaveHandler,
    assistArtifactArchiveHandler,
    assistArtifactListHandler,
    assistArtifactReadHandler,
  ] as readonly CapabilityHandler<never>[],
  migrations: assistMigrations,
};
