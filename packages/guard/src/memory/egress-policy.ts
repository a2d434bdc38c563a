import type { EgressPolicy } from '../ports.js';

/** An {@link EgressPolicy} with one fixed allow-list for every organization. */
export function createStaticEgressPolicy(hosts: readonly string[]): EgressPolicy {
  const allowList = [...hosts];
  return { allowedHosts: () => allowList };
}
