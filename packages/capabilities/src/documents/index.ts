import type { CapabilityDomain } from '../domain.js';
import { documentsDocumentUploadHandler } from './document-upload.js';
import { documentsMigrations } from './migrations.js';

/** `documents`: uploaded files, stored in the domain's own `documents` table. */
export const documentsDomain: CapabilityDomain = {
  name: 'documents',
  handlers: [documentsDocumentUploadHandler],
  migrations: documentsMigrations,
};
