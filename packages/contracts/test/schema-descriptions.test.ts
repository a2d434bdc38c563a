// Issue 28, finding 2: schemas that explain themselves. Every property of every capability's input and
// output schema carries a `description` an agent reads in describe (what the field means, its units,
// who sets it, when it is null), so nothing is left to guessing from the field's name.
import { capabilityContracts, toPlainJsonSchema } from '@agw/contracts';
import { describe, expect, it } from 'vitest';

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Keywords whose value is a map of name → subschema, and the path segment each is shown under. */
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'] as const;
/** Keywords whose value is one subschema. */
const SCHEMA_SLOTS = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'] as const;
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;

/** A description an agent can read: a string with some words in it. */
const described = (node: Node) => typeof node.description === 'string' && node.description.trim().length > 0;

/**
 * The paths of the properties under `node` without a description (`lines[].unit`, `totals.balance`).
 * A property counts as described when its own schema has one; a nullable or optional wrapper does not
 * hide it, since describe shows the property's schema as written.
 */
function undescribed(node: unknown, path: string): string[] {
  if (!isNode(node)) return [];
  const found: string[] = [];
  for (const map of SCHEMA_MAPS) {
    const members = node[map];
    if (!isNode(members)) continue;
    for (const [name, member] of Object.entries(members)) {
      const memberPath = map === 'properties' ? `${path}.${name}` : `${path}[${map}:${name}]`;
      if (map === 'properties' && isNode(member) && !described(member)) found.push(memberPath);
      found.push(...undescribed(member, memberPath));
    }
  }
  for (const slot of SCHEMA_SLOTS) {
    found.push(...undescribed(node[slot], slot === 'items' ? `${path}[]` : `${path}[${slot}]`));
  }
  for (const list of SCHEMA_LISTS) {
    const branches = node[list];
    if (Array.isArray(branches)) for (const branch of branches) found.push(...undescribed(branch, path));
  }
  return found;
}

describe('every field of every capability schema explains itself', () => {
  it('each property of each input and output schema has a description', () => {
    const found = capabilityContracts.flatMap((contract) => [
      ...undescribed(toPlainJsonSchema(contract.input_schema), `${contract.id} input`),
      ...undescribed(toPlainJsonSchema(contract.output_schema), `${contract.id} output`),
    ]);
    expect([...new Set(found)].sort()).toEqual([]);
  });
});
