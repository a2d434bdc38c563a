/**
 * Cross-bundle class checks: `instanceof` fails when two copies of the SDK are loaded (ESM and CJS, or two
 * versions), so every error class carries a `Symbol.for` brand and a static type guard reads it.
 */

/** Marks `target` with the registry symbol `@agw/client/<name>` (non-enumerable, so inspect stays clean). */
export function brand(target: object, name: string): void {
  Object.defineProperty(target, Symbol.for(`@agw/client/${name}`), { value: true, enumerable: false });
}

/** True when `value` carries the brand `@agw/client/<name>`. */
export function hasBrand(value: unknown, name: string): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[Symbol.for(`@agw/client/${name}`)] === true
  );
}
