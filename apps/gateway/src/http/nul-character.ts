import { escapePointerToken } from '@agw/contracts';
import { GatewayError } from './gateway-error.js';

/**
 * PostgreSQL stores no U+0000 in `text` or `jsonb`: a request string holding one (valid JSON as
 * `\u0000`) would otherwise fail at the first insert with a 500. Such a body is refused up front with
 * 400 `validation_failed` pointing at the member (found by the fuzzing suite, docs/fuzzing.md).
 */
export function assertNoNulCharacter(text: string, value: unknown): void {
  // Cheap filter: the only way to write U+0000 in JSON text is the escape `\u0000`.
  if (!text.includes('\\u0000')) return;
  const pointer = findNulCharacter(value);
  if (pointer === undefined) return;
  const message = 'must not contain the NUL character (U+0000)';
  throw new GatewayError('validation_failed', {
    message: `The request body holds a NUL character (U+0000) at "${pointer}"; it cannot be stored.`,
    schemaPointer: pointer,
    details: [{ schema_pointer: pointer, keyword: 'characters', message }],
  });
}

/** RFC 6901 pointer of the first string or member name holding U+0000 (iterative: bodies nest deep). */
function findNulCharacter(root: unknown): string | undefined {
  const stack: Array<{ value: unknown; pointer: string }> = [{ value: root, pointer: '' }];
  while (stack.length > 0) {
    const { value, pointer } = stack.pop() as { value: unknown; pointer: string };
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return pointer;
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => {
        stack.push({ value: item, pointer: `${pointer}/${index}` });
      });
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const member = `${pointer}/${escapePointerToken(key)}`;
        if (key.includes('\u0000')) return member;
        stack.push({ value: item, pointer: member });
      }
    }
  }
  return undefined;
}
