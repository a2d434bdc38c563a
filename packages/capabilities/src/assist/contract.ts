import { CapabilityError } from '../define.js';

export function artifactNotFound(id: string): never {
  throw new CapabilityError('not_found', `No artifact ${id} in this organization.`);
}
