import { type Static, Type } from '@sinclair/typebox';
import { INTERFACE_VERSION } from '../version.js';
import { MAX_VIOLATIONS } from './error-envelope.js';
import {
  CAPABILITY_ID_PATTERN,
  CAPABILITY_VERSION_PATTERN,
  Closed,
  Credits,
  Decimal,
  FreeObject,
  idOf,
  Nullable,
  Ref,
  Scopes,
  VISIBLE_ASCII_PATTERN,
} from './primitives.js';

/** Risk levels, lowest first. */
export const RiskLevel = Type.Union(
  [Type.Literal('low'), Type.Literal('medium'), Type.Literal('high'), Type.Literal('critical')],
  idOf('RiskLevel'),
);
export type RiskLevel = Static<typeof RiskLevel>;

/** Whether a capability may be dry-run, or must be dry-run before invoke. */
export const DryRunMode = Type.Union(
  [Type.Literal('supported'), Type.Literal('required')],
  idOf('DryRunMode'),
);
export type DryRunMode = Static<typeof DryRunMode>;

/** `interface_version` (`1.0` today); a pattern rather than a literal so a minor bump does not break old validators. */
export const InterfaceVersion = () =>
  Type.String({ pattern: '^[0-9]+\\.[0-9]+$', examples: [INTERFACE_VERSION] });
export const CapabilityId = () => Type.String({ pattern: CAPABILITY_ID_PATTERN, maxLength: 200 });
/** The version a client asks for; resolution of partial versions is the gateway's business. */
const RequestedVersion = () => Type.String({ minLength: 1, maxLength: 64 });
export const ResolvedVersion = () => Type.String({ pattern: CAPABILITY_VERSION_PATTERN, maxLength: 64 });
export const Domain = () => Type.String({ pattern: '^[a-z][a-z0-9_]*$', maxLength: 64 });
const AuditId = () => Type.String({ minLength: 1, maxLength: 128 });

/** Most tags a capability carries. */
const MAX_TAGS = 16;
/** Most versions of one capability the gateway serves side by side. */
const MAX_VERSIONS = 64;
/** Largest page of search_capabilities (its `limit`). */
const MAX_SEARCH_RESULTS = 50;
/** Most effects a dry run reports, and warnings an invoke carries. */
const MAX_NOTES = 16;
/** Most `operation` values a `*.manage` capability lists as read or mutating. */
const MAX_OPERATIONS = 16;
/** Most members of a cost object (amount, currency and a few more the spec allows). */
const MAX_COST_MEMBERS = 16;

/** Whether the calling key may use a capability (search hits, keyed describe answers). */
const CapabilityAccess = () =>
  Type.Union([Type.Literal('allowed'), Type.Literal('scope_missing'), Type.Literal('approval_always')]);

/**
 * The public view of a capability version: what the catalog lists for each capability and what the
 * describe answer starts with (describe adds the schemas and runtime details).
 */
export const CapabilityPublicFields = () => ({
  id: CapabilityId(),
  version: ResolvedVersion(),
  summary: Type.String(),
  domain: Domain(),
  tags: Type.Array(Type.String(), { maxItems: MAX_TAGS, description: `At most ${MAX_TAGS} tags.` }),
  risk_level: Ref(RiskLevel),
  scopes: Scopes(),
  cost_credits: Credits(),
  mutating: Type.Boolean(),
  dry_run: Ref(DryRunMode),
});

/** POST /mcp/search_capabilities body. */
export const SearchCapabilitiesRequest = Type.Object(
  {
    query: Type.Optional(Type.String({ maxLength: 200 })),
    domain: Type.Optional(Domain()),
    risk_level_max: Type.Optional(Ref(RiskLevel)),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SEARCH_RESULTS, default: 10 })),
    cursor: Type.Optional(Type.String({ maxLength: 512 })),
  },
  { ...idOf('SearchCapabilitiesRequest'), ...Closed },
);
export type SearchCapabilitiesRequest = Static<typeof SearchCapabilitiesRequest>;

/** One hit of search_capabilities; `access` tells whether the calling key may use it. */
export const SearchResultItem = Type.Object(
  {
    id: CapabilityId(),
    version: ResolvedVersion(),
    summary: Type.String(),
    domain: Domain(),
    risk_level: Ref(RiskLevel),
    access: CapabilityAccess(),
  },
  { ...idOf('SearchResultItem'), ...Closed },
);
export type SearchResultItem = Static<typeof SearchResultItem>;

/** POST /mcp/search_capabilities 200 body. */
export const SearchCapabilitiesResponse = Type.Object(
  {
    interface_version: InterfaceVersion(),
    results: Type.Array(Ref(SearchResultItem), {
      maxItems: MAX_SEARCH_RESULTS,
      description: "One page: at most the request's `limit`.",
    }),
    total: Type.Integer({ minimum: 0 }),
    next_cursor: Nullable(Type.String({ minLength: 1, maxLength: 512 })),
  },
  { ...idOf('SearchCapabilitiesResponse'), ...Closed },
);
export type SearchCapabilitiesResponse = Static<typeof SearchCapabilitiesResponse>;

/** POST /mcp/describe body. */
export const DescribeRequest = Type.Object(
  { id: CapabilityId(), version: Type.Optional(RequestedVersion()) },
  { ...idOf('DescribeRequest'), ...Closed },
);
export type DescribeRequest = Static<typeof DescribeRequest>;

/** POST /mcp/describe 200 body: the full runtime contract of one capability version. */
export const CapabilityDescription = Type.Object(
  {
    interface_version: InterfaceVersion(),
    ...CapabilityPublicFields(),
    status: Type.Union([Type.Literal('active'), Type.Literal('deprecated')]),
    available_versions: Type.Array(ResolvedVersion(), {
      minItems: 1,
      maxItems: MAX_VERSIONS,
      description: `At most ${MAX_VERSIONS} versions.`,
    }),
    idempotency_key_required: Type.Boolean({
      description:
        'Whether invoke needs an idempotency_key. For a capability with read_operations only its mutating_operations need one.',
    }),
    read_operations: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        maxItems: MAX_OPERATIONS,
        description:
          'The params.operation values that only read: invoked without an idempotency_key (one that is sent is still honoured).',
      }),
    ),
    mutating_operations: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        maxItems: MAX_OPERATIONS,
        description: 'The params.operation values that change state: invoked with an idempotency_key.',
      }),
    ),
    long_running: Type.Boolean(),
    access: Type.Optional(CapabilityAccess()),
    input_schema: FreeObject('JSON Schema 2020-12 of params'),
    output_schema: FreeObject('JSON Schema 2020-12 of result'),
  },
  { ...idOf('CapabilityDescription'), ...Closed },
);
export type CapabilityDescription = Static<typeof CapabilityDescription>;

/** POST /mcp/dry_run body. */
export const DryRunRequest = Type.Object(
  { id: CapabilityId(), version: Type.Optional(RequestedVersion()), params: FreeObject() },
  { ...idOf('DryRunRequest'), ...Closed },
);
export type DryRunRequest = Static<typeof DryRunRequest>;

/** POST /mcp/dry_run 200 body. */
export const DryRunResponse = Type.Object(
  {
    interface_version: InterfaceVersion(),
    valid: Type.Boolean(),
    capability_id: CapabilityId(),
    resolved_version: ResolvedVersion(),
    audit_id: AuditId(),
    violations: Type.Optional(
      Type.Array(FreeObject(), {
        maxItems: MAX_VIOLATIONS,
        description: `The first ${MAX_VIOLATIONS} violations at most.`,
      }),
    ),
    would_require_approval: Type.Optional(Type.Boolean()),
    approval_reason: Type.Optional(Type.String()),
    estimated_cost: Type.Optional(
      Type.Object(
        {
          amount_max: Type.Number({ minimum: 0 }),
          currency: Type.Optional(Type.Literal('credits')),
          quote: Type.Optional(
            Type.String({
              pattern: '^agw_q_[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
              maxLength: 1024,
              description:
                'Beyond the spec: a signed price quote for exactly these params, this installation, capability and version. Send it with invoke (HTTP header Agw-Quote, MCP params._meta["agw/quote"]): the run is never charged more than amount_max, and changed params or an expired quote are refused with 409 quote_invalid before anything runs.',
            }),
          ),
          quote_expires_at: Type.Optional(
            Type.String({
              format: 'date-time',
              description: 'Beyond the spec: when the quote stops holding.',
            }),
          ),
        },
        { additionalProperties: true, maxProperties: MAX_COST_MEMBERS },
      ),
    ),
    effects: Type.Optional(
      Type.Array(FreeObject(), { maxItems: MAX_NOTES, description: `At most ${MAX_NOTES} effects.` }),
    ),
  },
  { ...idOf('DryRunResponse'), ...Closed },
);
export type DryRunResponse = Static<typeof DryRunResponse>;

/** POST /mcp/invoke body. */
export const InvokeRequest = Type.Object(
  {
    id: CapabilityId(),
    version: Type.Optional(RequestedVersion()),
    params: FreeObject(),
    idempotency_key: Type.Optional(
      Type.String({ minLength: 16, maxLength: 128, pattern: VISIBLE_ASCII_PATTERN }),
    ),
    approval_token: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  },
  { ...idOf('InvokeRequest'), ...Closed },
);
export type InvokeRequest = Static<typeof InvokeRequest>;

/** POST /mcp/invoke 200 body. */
export const InvokeResponse = Type.Object(
  {
    interface_version: InterfaceVersion(),
    status: Type.Union([
      Type.Literal('succeeded'),
      Type.Literal('pending_approval'),
      Type.Literal('accepted'),
    ]),
    capability_id: CapabilityId(),
    resolved_version: ResolvedVersion(),
    audit_id: AuditId(),
    result: Type.Optional(Type.Unknown()),
    approval: Type.Optional(FreeObject()),
    poll: Type.Optional(FreeObject()),
    cost: Type.Optional(
      Type.Object(
        { credits: Decimal(), currency: Type.Optional(Type.Literal('credits')) },
        { additionalProperties: true, maxProperties: MAX_COST_MEMBERS },
      ),
    ),
    replayed: Type.Optional(Type.Boolean()),
    warnings: Type.Optional(
      Type.Array(Type.String(), { maxItems: MAX_NOTES, description: `At most ${MAX_NOTES} warnings.` }),
    ),
  },
  { ...idOf('InvokeResponse'), ...Closed },
);
export type InvokeResponse = Static<typeof InvokeResponse>;
