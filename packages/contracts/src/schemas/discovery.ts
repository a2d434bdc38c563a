import { type Static, Type } from '@sinclair/typebox';
import { CapabilityPublicFields, InterfaceVersion } from './meta-tools.js';
import { Closed, FreeObject, idOf, Ref, RelativePath, Timestamp } from './primitives.js';

/** GET /health body. `degraded` when a configured dependency is down. */
export const HealthResponse = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
    service: Type.String({ minLength: 1 }),
    domain: Type.String({ minLength: 1 }),
    timestamp: Timestamp(),
    version: Type.String({ minLength: 1 }),
    interface_version: InterfaceVersion(),
    checks: Type.Object(
      {
        database: Type.Object(
          {
            status: Type.Union([Type.Literal('ok'), Type.Literal('down')]),
            driver: Type.Union([Type.Literal('pglite'), Type.Literal('postgres')]),
          },
          Closed,
        ),
        redis: Type.Object(
          { status: Type.Union([Type.Literal('ok'), Type.Literal('down'), Type.Literal('not_configured')]) },
          Closed,
        ),
        mail: Type.Object(
          {
            status: Type.Union([Type.Literal('ok'), Type.Literal('down')]),
            transport: Type.Union([Type.Literal('smtp'), Type.Literal('dev_mailbox')]),
          },
          Closed,
        ),
      },
      Closed,
    ),
  },
  { ...idOf('HealthResponse'), ...Closed },
);
export type HealthResponse = Static<typeof HealthResponse>;

/** Names of the four meta-tools. */
export const MetaToolName = Type.Union(
  [
    Type.Literal('search_capabilities'),
    Type.Literal('describe'),
    Type.Literal('dry_run'),
    Type.Literal('invoke'),
  ],
  idOf('MetaToolName'),
);
export type MetaToolName = Static<typeof MetaToolName>;

/** `optional`: anonymous calls are answered too (search_capabilities, describe). */
const MetaToolAuthentication = () => Type.Union([Type.Literal('optional'), Type.Literal('required')]);

/** How a meta-tool is called: the catalog's `meta_tools` entry, and the manifest's after its name. */
const MetaToolEndpointFields = () => ({
  method: Type.Literal('POST'),
  path: RelativePath(),
  summary: Type.String({ minLength: 1 }),
  authentication: MetaToolAuthentication(),
});

/** A meta-tool as listed by the manifest. */
export const MetaToolSummary = Type.Object(
  { name: Ref(MetaToolName), ...MetaToolEndpointFields() },
  { ...idOf('MetaToolSummary'), ...Closed },
);
export type MetaToolSummary = Static<typeof MetaToolSummary>;

/** A meta-tool in the catalog's `meta_tools` map (keyed by name). */
export const CatalogMetaTool = Type.Object(MetaToolEndpointFields(), {
  ...idOf('CatalogMetaTool'),
  ...Closed,
});
export type CatalogMetaTool = Static<typeof CatalogMetaTool>;

/** The public view of one capability in GET /capabilities (schemas are read with describe). */
export const CatalogCapability = Type.Object(CapabilityPublicFields(), {
  ...idOf('CatalogCapability'),
  ...Closed,
});
export type CatalogCapability = Static<typeof CatalogCapability>;

const Count = () => Type.Integer({ minimum: 0 });

/** Most capability versions one catalog lists (about 70 today): a bound clients can size buffers by. */
const MAX_CATALOG_CAPABILITIES = 1000;
/** Most domains, and most members of the catalog's open objects (the spec allows extra members). */
const MAX_CATALOG_MEMBERS = 64;
/** The four meta-tools, with room for a few more. */
const MAX_META_TOOLS = 8;

/** GET /capabilities body. Extra top-level members are allowed, as the spec says. */
export const CapabilityCatalog = Type.Object(
  {
    schema_version: Type.String({ minLength: 1 }),
    interface_version: InterfaceVersion(),
    snapshot: Type.Object(
      {
        generated_at: Timestamp(),
        capability_count: Count(),
        digest: Type.String({ pattern: '^[0-9a-f]{8,}$' }),
      },
      { additionalProperties: true, maxProperties: MAX_CATALOG_MEMBERS },
    ),
    totals: Type.Object(
      {
        capabilities: Count(),
        by_domain: Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_]*$' }), Count(), {
          maxProperties: MAX_CATALOG_MEMBERS,
        }),
        by_risk_level: Type.Object(
          { low: Count(), medium: Count(), high: Count(), critical: Count() },
          Closed,
        ),
      },
      { additionalProperties: true, maxProperties: MAX_CATALOG_MEMBERS },
    ),
    meta_tools: Type.Optional(
      Type.Object(
        {
          search_capabilities: Ref(CatalogMetaTool),
          describe: Ref(CatalogMetaTool),
          dry_run: Ref(CatalogMetaTool),
          invoke: Ref(CatalogMetaTool),
        },
        Closed,
      ),
    ),
    capabilities: Type.Optional(
      Type.Array(Ref(CatalogCapability), {
        maxItems: MAX_CATALOG_CAPABILITIES,
        description: `At most ${MAX_CATALOG_CAPABILITIES} capability versions.`,
      }),
    ),
  },
  { ...idOf('CapabilityCatalog'), additionalProperties: true, maxProperties: MAX_CATALOG_MEMBERS },
);
export type CapabilityCatalog = Static<typeof CapabilityCatalog>;

/** GET /mcp/manifest body. Every endpoint is a path relative to the gateway's base address. */
export const McpManifest = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    version: Type.String({ minLength: 1 }),
    interface_version: InterfaceVersion(),
    description: Type.String({ minLength: 1 }),
    base_url: Type.Optional(Type.String({ format: 'uri' })),
    meta_tools: Type.Array(Ref(MetaToolSummary), { maxItems: MAX_META_TOOLS }),
    resources: Type.Object(
      {
        catalog: RelativePath(),
        openapi: RelativePath(),
        llms: RelativePath(),
        health: RelativePath(),
        tools: RelativePath(),
      },
      Closed,
    ),
    transport: Type.Object(
      {
        http: Type.Object(
          {
            search_capabilities: RelativePath(),
            describe: RelativePath(),
            dry_run: RelativePath(),
            invoke: RelativePath(),
          },
          Closed,
        ),
        streamable_http: RelativePath(),
      },
      Closed,
    ),
    authentication: Type.Object(
      { scheme: Type.Literal('bearer'), key_format: Type.String({ minLength: 1 }) },
      Closed,
    ),
  },
  { ...idOf('McpManifest'), ...Closed },
);
export type McpManifest = Static<typeof McpManifest>;

/** GET /mcp/tools body: compact meta-tool definitions. */
export const McpTools = Type.Object(
  {
    tools: Type.Array(
      Type.Object(
        {
          name: Ref(MetaToolName),
          description: Type.String({ minLength: 1 }),
          input_schema: FreeObject('JSON Schema 2020-12 of the request body'),
          authentication: MetaToolAuthentication(),
        },
        Closed,
      ),
      { maxItems: MAX_META_TOOLS },
    ),
  },
  { ...idOf('McpTools'), ...Closed },
);
export type McpTools = Static<typeof McpTools>;
