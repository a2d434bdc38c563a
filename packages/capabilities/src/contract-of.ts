import { type CapabilityContract, findCapabilityContract } from '@agw/contracts';

/** The contract a handler implements (throws at import when the contracts package lacks it). */
export function contractOf(id: string, version = '1.0.0'): CapabilityContract {
  const contract = findCapabilityContract(id, version);
  if (!contract) throw new Error(`contracts package lacks ${id}@${version}`);
  return contract;
}
