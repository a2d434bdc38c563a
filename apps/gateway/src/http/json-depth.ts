import { JSON_DEPTH_MESSAGE, MAX_JSON_DEPTH, pointerBeyondDepth } from '@agw/contracts';
import { GatewayError } from './gateway-error.js';

/**
 * Refuses a parsed request body that nests objects and arrays more than MAX_JSON_DEPTH levels deep,
 * with 400 `validation_failed` pointing at the first value too deep. Checked right after parsing, before
 * anything walks the body recursively: the canonical JSON of the idempotency and audit hashes ran out
 * of stack on a few kilobytes nested ten thousand deep (a 500, issue 26 finding 5).
 */
export function assertJsonDepth(value: unknown): void {
  const pointer = pointerBeyondDepth(value);
  if (pointer === undefined) return;
  throw new GatewayError('validation_failed', {
    message: `The request body nests deeper than ${MAX_JSON_DEPTH} levels at "${pointer}".`,
    schemaPointer: pointer,
    details: [{ schema_pointer: pointer, keyword: 'maxDepth', message: JSON_DEPTH_MESSAGE }],
  });
}
