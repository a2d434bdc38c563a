// Issue 26, Build item 1: bounded work per call. Every list in every contract (capability inputs and
// outputs, the meta-tools' and the other wire schemas) has a `maxItems`, and every object that takes
// members it does not name (a free-form object, a record) a `maxProperties`; a free-form object's depth
// is bounded by the request's nesting bound (MAX_JSON_DEPTH), which its description states.
import {
  capabilityContracts,
  MAX_JSON_DEPTH,
  metaTools,
  schemaNames,
  schemas,
  toPlainJsonSchema,
} from '@agw/contracts';
import { describe, expect, it } from 'vitest';

type Node = Record<string, unknown>;

/** Every schema node below `node`, with its JSON Pointer (iterative; the schemas are plain JSON). */
function schemaNodes(root: unknown): Array<[string, Node]> {
  const found: Array<[string, Node]> = [];
  const stack: Array<[string, unknown]> = [['', root]];
  while (stack.length > 0) {
    const [pointer, node] = stack.pop() as [string, unknown];
    if (Array.isArray(node)) {
      node.forEach((item, index) => {
        stack.push([`${pointer}/${index}`, item]);
      });
    } else if (node !== null && typeof node === 'object') {
      found.push([pointer, node as Node]);
      for (const [key, value] of Object.entries(node)) stack.push([`${pointer}/${key}`, value]);
    }
  }
  return found;
}

const isArray = (node: Node) =>
  node.type === 'array' || (Array.isArray(node.type) && node.type.includes('array'));
const isOpenObject = (node: Node) =>
  (node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object'))) &&
  node.additionalProperties !== false;

/** An object that names no members and takes any (not a record, whose members follow a pattern). */
const isFreeForm = (node: Node) =>
  node.type === 'object' &&
  node.properties === undefined &&
  node.patternProperties === undefined &&
  (node.additionalProperties === undefined || node.additionalProperties === true);

/** The pointers under `schema` of lists without maxItems and open objects without maxProperties. */
function unbounded(name: string, schema: unknown): string[] {
  return schemaNodes(toPlainJsonSchema(schema as object))
    .filter(([pointer]) => !/\/(examples|default|const|enum)(\/|$)/.test(pointer))
    .flatMap(([pointer, node]) => [
      ...(isArray(node) && typeof node.maxItems !== 'number' ? [`${name}${pointer} (maxItems)`] : []),
      ...(isOpenObject(node) && typeof node.maxProperties !== 'number'
        ? [`${name}${pointer} (maxProperties)`]
        : []),
    ])
    .sort();
}

describe('every collection in the contracts is bounded', () => {
  it('capability inputs and outputs', () => {
    const found = capabilityContracts.flatMap((contract) => [
      ...unbounded(`${contract.id} input`, contract.input_schema),
      ...unbounded(`${contract.id} output`, contract.output_schema),
    ]);
    expect(found).toEqual([]);
  });

  it('the meta-tools and every named wire schema', () => {
    const found = [
      ...metaTools.flatMap((tool) => [
        ...unbounded(`${tool.name} input`, tool.input_schema),
        ...unbounded(`${tool.name} output`, tool.output_schema),
      ]),
      ...schemaNames.flatMap((name) => unbounded(name, schemas[name])),
    ];
    expect(found).toEqual([]);
  });

  it('a free-form object says how deep it may nest', () => {
    const named = (name: string, schema: unknown) =>
      schemaNodes(toPlainJsonSchema(schema as object)).map(
        ([pointer, node]) => [`${name}${pointer}`, node] as const,
      );
    const silent = [
      ...capabilityContracts.flatMap((contract) => [
        ...named(`${contract.id} input`, contract.input_schema),
        ...named(`${contract.id} output`, contract.output_schema),
      ]),
      ...schemaNames.flatMap((name) => named(name, schemas[name])),
    ]
      .filter(([, node]) => isFreeForm(node))
      .filter(([, node]) => !String(node.description ?? '').includes(`${MAX_JSON_DEPTH} levels deep`))
      .map(([pointer]) => pointer);
    expect(silent).toEqual([]);
  });
});
