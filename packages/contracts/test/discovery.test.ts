import {
  buildCapabilityCatalog,
  buildCapabilityDescription,
  buildMcpManifest,
  buildMcpTools,
  buildOpenApiDocument,
  CATALOG_SCHEMA_VERSION,
  capabilityContracts,
  createValidator,
  errorCodes,
  findCapabilityContract,
  metaTools,
  operations,
  schemaNames,
  toSearchResultItem,
} from '@agw/contracts';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';

const validator = createValidator();
const generatedAt = '2026-11-22T05:00:00.000Z';

describe('capability catalog', () => {
  const catalog = buildCapabilityCatalog({ generatedAt });

  it('validates against CapabilityCatalog and lists every capability with totals', () => {
    expect(validator.validate('CapabilityCatalog', catalog)).toEqual({ valid: true });
    expect(catalog).toMatchObject({ schema_version: CATALOG_SCHEMA_VERSION, interface_version: '1.0' });
    expect(catalog.capabilities).toHaveLength(capabilityContracts.length);
    expect(catalog.totals.capabilities).toBe(capabilityContracts.length);
    expect(Object.values(catalog.totals.by_domain).reduce((a, b) => a + b, 0)).toBe(
      capabilityContracts.length,
    );
    expect(Object.keys(catalog.meta_tools ?? {})).toEqual([
      'search_capabilities',
      'describe',
      'dry_run',
      'invoke',
    ]);
  });

  it('exposes no schemas (describe does) and is deterministic', () => {
    expect(JSON.stringify(catalog)).not.toContain('input_schema');
    expect(buildCapabilityCatalog({ generatedAt })).toEqual(catalog);
    const fewer = buildCapabilityCatalog({ generatedAt, capabilities: capabilityContracts.slice(1) });
    expect(fewer.snapshot.digest).not.toBe(catalog.snapshot.digest);
  });

  it('allows extra top-level members, as the spec says', () => {
    expect(validator.validate('CapabilityCatalog', { ...catalog, notice: 'beta' })).toEqual({ valid: true });
    expect(validator.validate('CapabilityCatalog', { ...catalog, snapshot: undefined }).valid).toBe(false);
  });
});

describe('describe and search bodies', () => {
  it('every contract yields a valid describe answer with self-contained schemas', () => {
    for (const contract of capabilityContracts) {
      const body = buildCapabilityDescription(contract, { access: 'allowed' });
      expect(validator.validate('CapabilityDescription', body), contract.id).toEqual({ valid: true });
      expect(JSON.stringify(body), contract.id).not.toContain('$ref');
      const item = toSearchResultItem(contract, 'scope_missing');
      expect(validator.validate('SearchResultItem', item), contract.id).toEqual({ valid: true });
    }
  });

  it('the describe input_schema validates the same way as the contract', () => {
    const contract = findCapabilityContract('billing.payment.record')!;
    const schema = buildCapabilityDescription(contract).input_schema;
    expect(
      validator.validate(schema as never, { document_id: '3f1c2b6e-8a4d-4c1e-9b2a-0123456789ab', amount: 0 }),
    ).toMatchObject({ valid: false });
  });
});

describe('MCP manifest and tools', () => {
  it('the manifest validates and uses relative endpoints', () => {
    const manifest = buildMcpManifest({ baseUrl: 'https://gateway.example' });
    expect(validator.validate('McpManifest', manifest)).toEqual({ valid: true });
    expect(manifest.transport.http.invoke).toBe('/mcp/invoke');
    expect(manifest.meta_tools.map((t) => t.name)).toEqual(metaTools.map((t) => t.name));
    expect(validator.validate('McpManifest', buildMcpManifest())).toEqual({ valid: true });
  });

  it('tools validate and carry stand-alone input schemas', () => {
    const tools = buildMcpTools();
    expect(validator.validate('McpTools', tools)).toEqual({ valid: true });
    expect(tools.tools.map((t) => [t.name, t.authentication])).toEqual([
      ['search_capabilities', 'optional'],
      ['describe', 'optional'],
      ['dry_run', 'required'],
      ['invoke', 'required'],
    ]);
    expect(JSON.stringify(tools)).not.toContain('$ref');
  });
});

describe('operations and OpenAPI', () => {
  it('the endpoint table has every path of the spec once, with the documented statuses', () => {
    const rows = operations.map((op) => `${op.method} ${op.path} ${op.successStatus}`);
    expect(rows).toEqual(
      expect.arrayContaining([
        'GET /health 200',
        'GET /llms.txt 200',
        'GET /mcp/manifest 200',
        'GET /mcp/tools 200',
        'GET /capabilities 200',
        'GET /openapi.json 200',
        'POST /register 201',
        'POST /organizations 201',
        'POST /owner-otp/claim 200',
        'POST /owner-otp/resend 200',
        'POST /agent-otp/verify 200',
        'POST /agent-otp/resend 200',
        'POST /keys/rotate 201',
        'GET /org/current 200',
        'POST /mcp/search_capabilities 200',
        'POST /mcp/describe 200',
        'POST /mcp/dry_run 200',
        'POST /mcp/invoke 200',
        'GET /mcp/jobs/{job_id} 200',
      ]),
    );
    expect(rows).toHaveLength(19);
    const invoke = operations.find((op) => op.path === '/mcp/invoke')!;
    expect(invoke.errorStatuses).toEqual(expect.arrayContaining([400, 401, 403, 409, 412, 429, 500]));
    for (const op of operations) {
      if (op.request !== undefined) expect(schemaNames).toContain(op.request);
      expect(op.idempotencyHeader).toBe(op.tag === 'access' && op.method === 'POST');
    }
  });

  it('every access endpoint documents the error statuses the spec lists (400, 401, 403, 409, 500)', () => {
    // Spec deviation fixed: /register lacked 401, /org/current lacked 400 and 409.
    const doc = buildOpenApiDocument() as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const access = operations.filter((op) => op.tag === 'access');
    expect(access.map((op) => op.path)).toHaveLength(8);
    for (const op of access) {
      const documented = Object.keys(doc.paths[op.path]?.[op.method.toLowerCase()]?.responses ?? {});
      expect(documented, op.path).toEqual(expect.arrayContaining(['400', '401', '403', '409', '500']));
    }
    // The lists are not padded beyond what applies: 412 only where the spec's precondition rule applies.
    const withPrecondition = operations.filter((op) => op.errorStatuses.includes(412)).map((op) => op.path);
    expect(withPrecondition.sort()).toEqual(['/keys/rotate', '/mcp/dry_run', '/mcp/invoke', '/org/current']);
  });

  it('the OpenAPI 3.1 document passes swagger-parser validation', async () => {
    const doc = buildOpenApiDocument({ serverUrl: 'https://gateway.example' });
    expect(doc.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('documents every error code and status, security and idempotency headers', () => {
    const doc = buildOpenApiDocument() as {
      paths: Record<
        string,
        Record<
          string,
          { security: unknown; parameters?: Array<{ name: string }>; responses: Record<string, unknown> }
        >
      >;
      components: { schemas: Record<string, Record<string, unknown>> };
    };
    const documented = doc.components.schemas.ErrorEnvelope?.['x-error-codes'] as Array<{
      code: string;
      status: number;
    }>;
    expect(documented.map((row) => row.code).sort()).toEqual(Object.keys(errorCodes).sort());
    for (const name of schemaNames) expect(doc.components.schemas[name], name).toBeDefined();
    expect(JSON.stringify(doc)).not.toContain('https://agent-gateway.dev/schemas');

    expect(doc.paths['/mcp/describe']?.post?.security).toEqual([{}, { bearer: [] }]);
    expect(doc.paths['/mcp/invoke']?.post?.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/register']?.post?.security).toEqual([]);
    expect(doc.paths['/register']?.post?.parameters?.map((p) => p.name)).toEqual(['Idempotency-Key']);
    expect(doc.paths['/mcp/jobs/{job_id}']?.get?.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/mcp/jobs/{job_id}']?.get?.parameters).toEqual([
      { name: 'job_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
    ]);
    expect(Object.keys(doc.paths['/mcp/invoke']?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '409', '412', '429', '500']),
    );
    const statuses = new Set(operations.flatMap((op) => op.errorStatuses));
    for (const code of Object.keys(errorCodes) as Array<keyof typeof errorCodes>) {
      expect(statuses.has(errorCodes[code].status), code).toBe(true);
    }
  });
});
