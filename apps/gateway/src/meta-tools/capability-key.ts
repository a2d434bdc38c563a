/** `id@version`: how the gateway keys one capability version's contract and handler. */
export function capabilityKey(id: string, version: string): string {
  return `${id}@${version}`;
}

/** The handlers (or contracts' holders) by {@link capabilityKey} of their contract. */
export function byCapabilityKey<
  T extends { readonly contract: { readonly id: string; readonly version: string } },
>(items: readonly T[]): Map<string, T> {
  return new Map(items.map((item) => [capabilityKey(item.contract.id, item.contract.version), item]));
}
