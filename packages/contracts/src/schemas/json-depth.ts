/**
 * How deep a request body may nest objects and arrays: the body itself is level 1, so
 * `{"params":{"metadata":{}}}` reaches level 3. Everything downstream walks a body recursively (the
 * canonical JSON behind idempotency and audit hashes, ajv, PostgreSQL's jsonb parser), and a body of a
 * few kilobytes can nest ten thousand levels: the gateway refuses a deeper body before anything walks
 * it (400 `validation_failed`, docs/errors.md). No business record needs more than a handful of levels.
 */
export const MAX_JSON_DEPTH = 32;

/** Most members a free-form object may have at its own level (deeper levels are bounded by the body limit). */
export const MAX_FREE_OBJECT_PROPERTIES = 256;

/** The rule as a violation says it. */
export const JSON_DEPTH_MESSAGE = `must not nest objects and arrays more than ${MAX_JSON_DEPTH} levels deep`;

/**
 * The RFC 6901 pointer of the first object or array nested deeper than `maxDepth` levels in `value`
 * (itself at level 1), or undefined when it stays within. Iterative, so any depth is measured safely,
 * and it stops at the first value too deep.
 */
export function pointerBeyondDepth(value: unknown, maxDepth: number = MAX_JSON_DEPTH): string | undefined {
  const stack: Array<{ value: unknown; pointer: string; depth: number }> = [{ value, pointer: '', depth: 1 }];
  while (stack.length > 0) {
    const current = stack.pop() as { value: unknown; pointer: string; depth: number };
    if (current.value === null || typeof current.value !== 'object') continue;
    if (current.depth > maxDepth) return current.pointer;
    const depth = current.depth + 1;
    if (Array.isArray(current.value)) {
      current.value.forEach((item, index) => {
        stack.push({ value: item, pointer: `${current.pointer}/${index}`, depth });
      });
    } else {
      for (const [key, item] of Object.entries(current.value)) {
        stack.push({
          value: item,
          pointer: `${current.pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`,
          depth,
        });
      }
    }
  }
  return undefined;
}
