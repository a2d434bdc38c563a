import { capabilityHandlers } from '@agw/capabilities';
import { type CapabilityContract, type SchemaName, schemas, toPlainJsonSchema } from '@agw/contracts';
import fc from 'fast-check';
import { nested } from './fuzz-values.js';
import { type JsonSchema, mutatedValue, schemaValue, validValue } from './schema-arbitrary.js';

/** The plain (inlined) JSON Schema of a named contracts schema. */
export const plain = (name: SchemaName): JsonSchema => toPlainJsonSchema(schemas[name]);

/** Every capability the gateway has a handler for (the ones invoke can really run). */
export const handledContracts: readonly CapabilityContract[] = capabilityHandlers.map(
  (handler) => handler.contract as CapabilityContract,
);

const fresh = fc.uuid({ version: 4 }).map((uuid) => `fuzz-${uuid}`);
const version = fc.constantFrom('1.0.0', '1', '1.0', '2.0.0', '0.0.0', 'latest', '', ' 1.0.0');

/**
 * Bodies of /mcp/dry_run and /mcp/invoke: mostly a handled capability's id with params generated from
 * its input schema (valid or mutated), sometimes an unknown id, sometimes a mutated envelope.
 */
export function capabilityCallBody(withIdempotency: boolean): fc.Arbitrary<unknown> {
  // One arbitrary per contract, built once (a `chain` would rebuild them for every value).
  const perContract = handledContracts.map((contract) => {
    const input = toPlainJsonSchema(contract.input_schema);
    const model: Record<string, fc.Arbitrary<unknown>> = {
      id: fc.constant(contract.id),
      params: schemaValue(input, 2),
      // Mostly the real version: an odd one ends at 404 before the params reach the schema and handler.
      version: fc.oneof(
        { weight: 4, arbitrary: fc.constant(contract.version) },
        { weight: 1, arbitrary: version },
      ),
    };
    if (withIdempotency) {
      model.idempotency_key = fc.oneof(
        { weight: 6, arbitrary: fresh },
        { weight: 1, arbitrary: validValue({ type: 'string' }) },
      );
      model.approval_token = fc.string({ maxLength: 40 });
    }
    return fc.record(model, {
      requiredKeys:
        withIdempotency && contract.mutating ? ['id', 'params', 'idempotency_key'] : ['id', 'params'],
    });
  });
  const known = fc.oneof(...perContract);
  const request = plain(withIdempotency ? 'InvokeRequest' : 'DryRunRequest');
  return fc.oneof(
    { weight: 8, arbitrary: known },
    { weight: 1, arbitrary: numericProductDraft(withIdempotency) },
    { weight: 2, arbitrary: deepFreeFormMember(withIdempotency) },
    { weight: 1, arbitrary: validValue(request) },
    { weight: 1, arbitrary: mutatedValue(request) },
  );
}

/**
 * Valid params of a capability with a free-form member (artifact `metadata`, link `context`), that member
 * nested deep (issue 26, finding 5: 10 000 levels passed the schema and ran the audit hash out of stack).
 */
function deepFreeFormMember(withIdempotency: boolean): fc.Arbitrary<unknown> {
  const members = handledContracts.flatMap((contract) => {
    const input = toPlainJsonSchema(contract.input_schema);
    const properties = (input.properties ?? {}) as Record<string, JsonSchema>;
    return Object.entries(properties)
      .filter(([, schema]) => schema.type === 'object' && schema.properties === undefined)
      .map(([name]) => ({ contract, input, name }));
  });
  return fc.oneof(
    ...members.map(({ contract, input, name }) =>
      fc.tuple(validValue(input), fc.constantFrom(10_000, 33), fresh).map(([params, levels, key]) => ({
        id: contract.id,
        params: { ...(params as Record<string, unknown>), [name]: nested(levels) },
        ...(withIdempotency ? { idempotency_key: key } : {}),
      })),
    ),
  );
}

/**
 * A draft whose line products sit at the edge of what the database's amounts hold (issue 26, finding 5:
 * quantity × unit_price ≥ 10^14, each within its own bound, was "numeric field overflow", a 500).
 */
function numericProductDraft(withIdempotency: boolean): fc.Arbitrary<unknown> {
  const factor = fc.constantFrom(1, 10, 99.999999, 1000, 99_999.99, 1e6, 1e7, 1e9, 1e12);
  const line = fc
    .tuple(factor, factor, fc.constantFrom(0, 19, 100))
    .map(([quantity, unit_price, tax_percent]) => ({ item_name: 'Edge', quantity, unit_price, tax_percent }));
  return fc.tuple(fc.array(line, { minLength: 1, maxLength: 3 }), fresh).map(([lines, key]) => ({
    id: 'billing.document.create_draft',
    params: { document_type: 'invoice', document_date: '2026-11-22', currency: 'EUR', lines },
    ...(withIdempotency ? { idempotency_key: key } : {}),
  }));
}

/** The capability contract a dry_run/invoke body names, when it names a handled one. */
export function namedContract(body: unknown): CapabilityContract | undefined {
  const id = (body as { id?: unknown } | null)?.id;
  return handledContracts.find((contract) => contract.id === id);
}

/** JSON-RPC messages for POST /mcp: mostly tools/call of a meta-tool with generated arguments. */
export function mcpMessage(): fc.Arbitrary<{ message: unknown; tool?: string }> {
  const args: Record<string, fc.Arbitrary<unknown>> = {
    search_capabilities: schemaValue(plain('SearchCapabilitiesRequest')),
    describe: schemaValue(plain('DescribeRequest')),
    dry_run: capabilityCallBody(false),
    invoke: capabilityCallBody(true),
    no_such_tool: fc.jsonValue({ maxDepth: 2 }),
    '': fc.constant({}),
  };
  const call = fc.oneof(
    ...Object.entries(args).map(([tool, values]) =>
      fc.tuple(values, fc.integer({ min: 1, max: 1e6 })).map(([argumentsValue, id]) => ({
        tool,
        message: {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: tool, arguments: argumentsValue },
        },
      })),
    ),
  );
  const other = fc
    .constantFrom(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { jsonrpc: '2.0', id: 3, method: 'no/such/method' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '1.0', id: 4, method: 'tools/list' },
      { jsonrpc: '2.0', id: null, method: 'tools/call' },
      { jsonrpc: '2.0', id: 5, method: 'tools/call', params: 'not an object' },
      { jsonrpc: '2.0', id: 6, method: 'initialize', params: { protocolVersion: '1999-01-01' } },
      [],
      [{ jsonrpc: '2.0', id: 7, method: 'ping' }],
    )
    .map((message) => ({ message }));
  return fc.oneof({ weight: 6, arbitrary: call }, { weight: 1, arbitrary: other });
}

/** Admin request bodies (operator-only schemas, kept in the gateway; mirrored here by shape). */
export const adminBodies: Record<string, JsonSchema> = {
  operatorKey: {
    type: 'object',
    additionalProperties: false,
    properties: { label: { type: 'string', minLength: 1, maxLength: 100 } },
  },
  access: {
    type: 'object',
    additionalProperties: false,
    required: ['mode'],
    properties: { mode: { enum: ['open'] } },
  },
  email: {
    type: 'object',
    additionalProperties: false,
    required: ['email'],
    properties: { email: { type: 'string', format: 'email', minLength: 3, maxLength: 254 } },
  },
  suppress: {
    type: 'object',
    additionalProperties: false,
    required: ['email'],
    properties: {
      email: { type: 'string', format: 'email', minLength: 3, maxLength: 254 },
      reason: { type: 'string', minLength: 1, maxLength: 200 },
    },
  },
  credit: {
    type: 'object',
    additionalProperties: false,
    required: ['amount'],
    properties: {
      amount: { type: 'string', pattern: '^(0|[1-9][0-9]{0,5})(\\.[0-9]{1,2})?$' },
      memo: { type: 'string', maxLength: 200 },
    },
  },
  policy: {
    type: 'object',
    additionalProperties: false,
    properties: {
      task_cap_credits: { anyOf: [{ type: 'string', pattern: '^[1-9][0-9]{0,3}$' }, { type: 'null' }] },
      daily_cap_credits: { anyOf: [{ type: 'string', pattern: '^[1-9][0-9]{0,3}$' }, { type: 'null' }] },
      kill_switch_enabled: { type: 'boolean' },
    },
  },
  deny: {
    type: 'object',
    additionalProperties: false,
    properties: { reason: { type: 'string', minLength: 1, maxLength: 200 } },
  },
};
