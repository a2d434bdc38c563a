import type { TSchema } from '@sinclair/typebox';
import { schemas } from './schemas/index.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const namedById = new Map<string, object>(
  Object.values(schemas).map((schema) => [schema.$id as string, schema]),
);

/**
 * A plain JSON copy of a schema: TypeBox's symbol keys dropped, `$id` removed, and every `$ref` to a
 * named schema replaced by that schema's content, so the result stands alone (MCP tool bodies,
 * describe answers, documents for clients that cannot resolve our `$id`s).
 */
export function toPlainJsonSchema(schema: TSchema | object): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(schema)) as Json;
  return inline(copy, 0) as Record<string, unknown>;
}

function inline(node: Json, depth: number): Json {
  if (depth > 64) throw new Error('schema nesting too deep (recursive $ref?)');
  if (Array.isArray(node)) return node.map((item) => inline(item, depth + 1));
  if (node === null || typeof node !== 'object') return node;
  const ref = node.$ref;
  if (typeof ref === 'string' && namedById.has(ref)) {
    const target = JSON.parse(JSON.stringify(namedById.get(ref))) as Json;
    return inline(target, depth + 1);
  }
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$id') continue;
    out[key] = inline(value, depth + 1);
  }
  return out;
}

/**
 * A plain JSON copy of a schema whose `$ref`s to named schemas are rewritten by `rewrite` (e.g. to
 * `#/components/schemas/<name>`); nested `$id`s are dropped, the top-level one too.
 */
export function rewriteSchemaRefs(
  schema: TSchema | object,
  rewrite: (name: string) => string,
): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(schema)) as Json;
  return rewriteNode(copy, rewrite) as Record<string, unknown>;
}

function rewriteNode(node: Json, rewrite: (name: string) => string): Json {
  if (Array.isArray(node)) return node.map((item) => rewriteNode(item, rewrite));
  if (node === null || typeof node !== 'object') return node;
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$id') continue;
    if (key === '$ref' && typeof value === 'string' && namedById.has(value)) {
      out[key] = rewrite(value.slice(value.lastIndexOf('/') + 1));
      continue;
    }
    out[key] = rewriteNode(value, rewrite);
  }
  return out;
}
