import { type CapabilityContract, findCapabilityContract } from '@agw/contracts';
import { CapabilityError } from '../define.js';

/** The contract of an assist capability (throws at import when the contracts package lacks it). */
export function assistContract(id: string): CapabilityContract {
  const contract = findCapabilityContract(id, '1.0.0');
  if (!contract) throw new Error(`contracts package lacks ${id}`);
  return contract;
}

export function artifactNotFound(id: string): never {
  throw new CapabilityError('not_found', `No artifact ${id} in this organization.`);
}
