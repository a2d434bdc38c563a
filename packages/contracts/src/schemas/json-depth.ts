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

interface Frame {
  readonly value: object;
  readonly depth: number;
  readonly parent: Frame | undefined;
  readonly key: string;
}

/** The RFC 6901 pointer of `frame`, built only for the one value that is too deep. */
function pointerOf(frame: Frame): string {
  const keys: string[] = [];
  for (let at: Frame | undefined = frame; at?.parent !== undefined; at = at.parent) keys.push(at.key);
  return keys
    .reverse()
    .map((key) => `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`)
    .join('');
}

/**
 * The RFC 6901 pointer of the first object or array nested deeper than `maxDepth` levels in `value`
 * (itself at level 1), or undefined when it stays within. Iterative, so any depth is measured safely;
 * it visits only objects and arrays and builds no pointer unless one is too deep (every request body
 * passes here).
 */
export function pointerBeyondDepth(value: unknown, maxDepth: number = MAX_JSON_DEPTH): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const stack: Frame[] = [{ value, depth: 1, parent: undefined, key: '' }];
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    if (frame.depth > maxDepth) return pointerOf(frame);
    const entries = Array.isArray(frame.value) ? frame.value.entries() : Object.entries(frame.value);
    for (const [key, item] of entries) {
      if (item !== null && typeof item === 'object') {
        stack.push({ value: item, depth: frame.depth + 1, parent: frame, key: String(key) });
      }
    }
  }
  return undefined;
}
