import { findMetaTool } from './meta-tool-definitions.js';
import type { SchemaName } from './schemas/index.js';

/** Who may call an operation. */
export type OperationAuth = 'none' | 'bootstrap_key' | 'installation_key' | 'optional_installation_key';

/** One HTTP endpoint of the interface. */
export interface OperationDefinition {
  readonly operationId: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly summary: string;
  readonly tag: 'discovery' | 'access' | 'meta-tools';
  readonly auth: OperationAuth;
  /** True when the `Idempotency-Key` header is required (onboarding mutations). */
  readonly idempotencyHeader: boolean;
  readonly request?: SchemaName;
  /** Success body: a named schema, `text` (text/plain), or `openapi` (the OpenAPI document itself). */
  readonly response: SchemaName | 'text' | 'openapi';
  readonly successStatus: 200 | 201;
  /** Every error status the gateway can answer on this operation, each with an ErrorEnvelope body. */
  readonly errorStatuses: readonly number[];
}

// Statuses any route can produce besides its own: wrong method (405) and an unexpected failure (500).
const ANY = [405, 500] as const;
// Statuses of every route with a JSON body: malformed/invalid (400), too large (413), wrong type (415).
const BODY = [400, 413, 415] as const;
// The error statuses the spec documents for every access endpoint ("Error codes listed for these"),
// whether or not a given route can produce each one; the OpenAPI document must list at least these.
const SPEC_ACCESS = [400, 401, 403, 409, 500] as const;
// A backing service (database, Redis, mail) being down.
const UNAVAILABLE = 503;

function statuses(...lists: ReadonlyArray<readonly number[]>): readonly number[] {
  return Object.freeze([...new Set(lists.flat())].sort((a, b) => a - b));
}

const discovery = (
  operationId: string,
  path: string,
  summary: string,
  response: OperationDefinition['response'],
): OperationDefinition => ({
  operationId,
  method: 'GET',
  path,
  summary,
  tag: 'discovery',
  auth: 'none',
  idempotencyHeader: false,
  response,
  successStatus: 200,
  errorStatuses: statuses(ANY),
});

/** The endpoint table of the whole interface: discovery, access, meta-tools. */
export const operations: readonly OperationDefinition[] = Object.freeze([
  discovery(
    'getHealth',
    '/health',
    'Health probe with the state of database, Redis and mail.',
    'HealthResponse',
  ),
  discovery('getLlmsTxt', '/llms.txt', 'Plain-text entry point for agents.', 'text'),
  discovery(
    'getMcpManifest',
    '/mcp/manifest',
    'Manifest: meta-tools, resources, relative endpoints.',
    'McpManifest',
  ),
  discovery('getMcpTools', '/mcp/tools', 'Compact meta-tool definitions.', 'McpTools'),
  discovery(
    'getCapabilities',
    '/capabilities',
    'Catalog of meta-tools and public capabilities.',
    'CapabilityCatalog',
  ),
  discovery('getOpenApi', '/openapi.json', 'This OpenAPI 3.1 document.', 'openapi'),
  {
    operationId: 'register',
    method: 'POST',
    path: '/register',
    summary: 'Register an app; returns a short-lived bootstrap key.',
    tag: 'access',
    auth: 'none',
    idempotencyHeader: true,
    request: 'RegisterRequest',
    response: 'RegisterResponse',
    successStatus: 201,
    errorStatuses: statuses(ANY, BODY, SPEC_ACCESS, [UNAVAILABLE]),
  },
  {
    operationId: 'createOrganization',
    method: 'POST',
    path: '/organizations',
    summary: 'Bootstrap an organization and installation; returns the installation key once and queues OTPs.',
    tag: 'access',
    auth: 'bootstrap_key',
    idempotencyHeader: true,
    request: 'OrganizationsRequest',
    response: 'OrganizationsResponse',
    successStatus: 201,
    errorStatuses: statuses(ANY, BODY, SPEC_ACCESS, [UNAVAILABLE]),
  },
  access('claimOwnerOtp', '/owner-otp/claim', 'Redeem the owner code.', 'OwnerOtpClaim'),
  access('resendOwnerOtp', '/owner-otp/resend', 'Queue a fresh owner code.', 'OwnerOtpResend'),
  access('verifyAgentOtp', '/agent-otp/verify', 'Redeem the agent mailbox code.', 'AgentOtpVerify'),
  access('resendAgentOtp', '/agent-otp/resend', 'Queue a fresh agent mailbox code.', 'AgentOtpResend'),
  {
    operationId: 'rotateKey',
    method: 'POST',
    path: '/keys/rotate',
    summary: 'Issue a new installation key (plaintext once); the old one expires after a grace period.',
    tag: 'access',
    auth: 'installation_key',
    idempotencyHeader: true,
    request: 'KeysRotateRequest',
    response: 'KeysRotateResponse',
    successStatus: 201,
    errorStatuses: statuses(ANY, BODY, SPEC_ACCESS, [412, UNAVAILABLE]),
  },
  {
    operationId: 'getCurrentOrganization',
    method: 'GET',
    path: '/org/current',
    summary: 'Organization, installation and principal of the key in use; poll it while approval is pending.',
    tag: 'access',
    auth: 'installation_key',
    idempotencyHeader: false,
    response: 'OrgCurrentResponse',
    successStatus: 200,
    errorStatuses: statuses(ANY, SPEC_ACCESS, [412, UNAVAILABLE]),
  },
  metaTool(
    'searchCapabilities',
    'search_capabilities',
    'optional_installation_key',
    'SearchCapabilities',
    [400, 401, 403],
  ),
  metaTool('describeCapability', 'describe', 'optional_installation_key', 'Describe', [400, 401, 403, 404]),
  metaTool('dryRun', 'dry_run', 'installation_key', 'DryRun', [400, 401, 403, 404, 412, 503]),
  metaTool('invoke', 'invoke', 'installation_key', 'Invoke', [400, 401, 403, 404, 409, 412, 429, 503]),
  {
    operationId: 'getJob',
    method: 'GET',
    path: '/mcp/jobs/{job_id}',
    summary:
      'Poll a long-running invoke (the poll.url of an accepted answer): accepted while it runs, then the final InvokeResponse or its error envelope.',
    tag: 'meta-tools',
    auth: 'installation_key',
    idempotencyHeader: false,
    response: 'InvokeResponse',
    successStatus: 200,
    // A finished job that failed answers its stored envelope, with the status invoke would have used.
    errorStatuses: statuses(ANY, [400, 401, 403, 404, 409, UNAVAILABLE]),
  },
]);

function access(
  operationId: string,
  path: string,
  summary: string,
  base: 'OwnerOtpClaim' | 'OwnerOtpResend' | 'AgentOtpVerify' | 'AgentOtpResend',
): OperationDefinition {
  return {
    operationId,
    method: 'POST',
    path,
    summary,
    tag: 'access',
    auth: 'installation_key',
    idempotencyHeader: true,
    request: `${base}Request`,
    response: `${base}Response`,
    successStatus: 200,
    errorStatuses: statuses(ANY, BODY, SPEC_ACCESS, [UNAVAILABLE]),
  };
}

function metaTool(
  operationId: string,
  name: string,
  auth: OperationAuth,
  base: 'SearchCapabilities' | 'Describe' | 'DryRun' | 'Invoke',
  own: readonly number[],
): OperationDefinition {
  const responses = {
    SearchCapabilities: 'SearchCapabilitiesResponse',
    Describe: 'CapabilityDescription',
    DryRun: 'DryRunResponse',
    Invoke: 'InvokeResponse',
  } as const;
  return {
    operationId,
    method: 'POST',
    path: `/mcp/${name}`,
    summary: findMetaTool(name)?.summary ?? `Meta-tool ${name}.`,
    tag: 'meta-tools',
    auth,
    idempotencyHeader: false,
    request: `${base}Request`,
    response: responses[base],
    successStatus: 200,
    errorStatuses: statuses(ANY, BODY, own),
  };
}

/** The operation serving `method path`. */
export function findOperation(method: string, path: string): OperationDefinition | undefined {
  const upper = method.toUpperCase();
  return operations.find((op) => op.method === upper && op.path === path);
}
