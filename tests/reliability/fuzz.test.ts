// Property-based fuzzing of every agent-facing endpoint and the operator API over real HTTP, with
// bodies generated from the contracts' JSON Schemas (valid values and one-mutation variants), raw-body,
// Content-Type, Authorization and Idempotency-Key mutations. Properties: never a 5xx; every error is
// the ErrorEnvelope; every 2xx matches its response schema; a body the contract refuses is never
// accepted; and nothing but the audit log and idempotency bookkeeping changes in the database when a
// request is rejected. The domains' public routes (booking pages and their JSON API, POST /a/events) are
// fuzzed last, without a key, for the first two properties. Fixed seed by default (printed); FUZZ_SEED /
// FUZZ_RUNS override (docs/fuzzing.md).
import { randomUUID } from 'node:crypto';
import { createValidator, type SchemaName } from '@agw/contracts';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { onboard } from '../../apps/gateway/test/helpers/access-client.js';
import { adminFetch, insertKey } from '../../apps/gateway/test/helpers/admin-fixtures.js';
import { approvedInstallation, useGateway } from '../../apps/gateway/test/helpers/gateway.js';
import {
  changedTables,
  createFingerprinter,
  type DbFingerprint,
  settleBackgroundWork,
} from './helpers/db-fingerprint.js';
import {
  adminBodies,
  capabilityCallBody,
  handledContracts,
  mcpMessage,
  namedContract,
  plain,
} from './helpers/fuzz-bodies.js';
import {
  bookingBody,
  bookingPath,
  bookingsPath,
  eventsBody,
  type PublicTargets,
} from './helpers/fuzz-public.js';
import {
  type AuthCase,
  authCase,
  type BodyCase,
  contentType,
  describeCase,
  type FuzzAnswer,
  freshLoopbackAddress,
  fuzzBudget,
  idempotencyCase,
  jsonText,
  RAW_MAY_PARSE,
  rawBody,
  send,
  sendFrom,
} from './helpers/fuzz-request.js';
import { schemaValue } from './helpers/schema-arbitrary.js';

const budget = fuzzBudget();
const validator = createValidator();
const unlimited = '999999';
const gateway = useGateway({
  env: { RATE_LIMIT_PER_INSTALLATION_PER_MINUTE: unlimited, RATE_LIMIT_PER_CAPABILITY_PER_MINUTE: unlimited },
});

/** The credentials the cases pick from; `installation` and `bootstrap` move as the fuzzer uses them up. */
const keys = {
  bootstrap: '',
  bootstrapOwner: '',
  installation: '',
  pending: '',
  revoked: '',
  expired: '',
  victimInstallationId: '',
  victimOrganizationId: '',
  victimOperatorPrefix: '',
};

/** `public`: a domain's public route, which reads no key (whatever Authorization says). */
type Auth = 'none' | 'bootstrap' | 'installation' | 'pending' | 'optional' | 'operator' | 'public';

/** The booking links and analytics property of the public-route cases, created in beforeAll. */
const targets: PublicTargets = { publicPath: '', secretPath: '', eventTypeId: '', ingestionId: '' };

/** One endpoint under fuzz. */
interface Endpoint {
  readonly name: string;
  /** Share of the run budget. */
  readonly share: number;
  readonly method: 'GET' | 'POST';
  readonly path: fc.Arbitrary<string>;
  readonly auth: Auth;
  readonly idempotencyHeader?: boolean;
  /** JSON bodies; a POST without one sends `{}`-shaped schema values of `request`. */
  readonly body?: fc.Arbitrary<unknown>;
  /** Whether the contract accepts a JSON body (undefined: no opinion, e.g. operator-only schemas). */
  readonly bodyValid?: (body: unknown) => boolean | undefined;
  /** The success body's schema; otherwise any JSON object. */
  readonly response?: SchemaName;
  /** True when no answer of this endpoint may change the database. */
  readonly readOnly?: boolean;
  /** Whether the answer means "done" (default: 2xx). */
  readonly accepted?: (answer: FuzzAnswer) => boolean;
  /** Extra checks of an answer (e.g. MCP tool results). */
  readonly check?: (answer: FuzzAnswer, body: unknown) => void;
  /**
   * True for the public routes: they count hits and caps in tables even when they refuse, so the
   * unchanged-database property does not apply (they run last, after every watched endpoint).
   */
  readonly unwatched?: boolean;
  /** Bookkeeping after an accepted answer (a consumed bootstrap key, a rotated key). */
  readonly afterAccepted?: (answer: FuzzAnswer, body: unknown) => Promise<void>;
}

const valid = (name: SchemaName) => (body: unknown) => validator.validate(name, body).valid;
const path = (value: string) => fc.constant(value);
const capabilityBodyValid = (request: SchemaName) => (body: unknown) => {
  if (!validator.validate(request, body).valid) return false;
  const contract = namedContract(body);
  if (contract === undefined) return false;
  const version = (body as { version?: string }).version;
  if (version !== undefined && version !== contract.version) return undefined;
  return validator.validate(contract.input_schema, (body as { params: unknown }).params).valid;
};

/** Registers a fresh app: its bootstrap key is spent by the first organization created with it. */
async function newBootstrap(): Promise<void> {
  const owner = `fuzz-${randomUUID()}@example.com`;
  const registered = await gateway.client.post('/register', {
    owner_email: owner,
    app: { slug: `fuzz-${randomUUID().slice(0, 8)}`, name: 'Fuzz app' },
  });
  keys.bootstrap = registered.json.bootstrap_key.token;
  keys.bootstrapOwner = owner;
}

const organizationsBody = fc
  .tuple(schemaValue(plain('OrganizationsRequest')), fc.boolean())
  .map(([body, own]) =>
    // Half the bodies name the registered owner, so the valid ones can really create an organization.
    own && typeof body === 'object' && body !== null && !Array.isArray(body)
      ? { ...body, owner_email: keys.bootstrapOwner, agent_email: undefined }
      : body,
  );

const adminIds = fc.oneof(
  fc.constantFrom('victim-installation', 'victim-organization'),
  fc.uuid().map(String),
  fc.constantFrom(
    'not-a-uuid',
    '..%2F..%2Fetc',
    '%00',
    '%C3%A4',
    'x'.repeat(300),
    '00000000-0000-0000-0000-000000000000',
  ),
);
const adminPath = (template: string) =>
  adminIds.map((id) =>
    template.replace(
      ':id',
      id === 'victim-installation'
        ? keys.victimInstallationId
        : id === 'victim-organization'
          ? keys.victimOrganizationId
          : id,
    ),
  );
const adminQuery = fc.constantFrom(
  '',
  '?status=pending',
  '?status=nope',
  '?limit=0',
  '?limit=1000',
  '?limit=-1',
  '?limit=1e3',
  '?status=approved&limit=5',
  '?organization=x',
  '?anchor_seq=1&anchor_hash=zz',
  '?cursor=%FF',
);

const endpoints: Endpoint[] = [
  {
    name: 'POST /register',
    share: 0.08,
    method: 'POST',
    path: path('/register'),
    auth: 'none',
    idempotencyHeader: true,
    body: schemaValue(plain('RegisterRequest')),
    bodyValid: valid('RegisterRequest'),
    response: 'RegisterResponse',
  },
  {
    name: 'POST /organizations',
    share: 0.05,
    method: 'POST',
    path: path('/organizations'),
    auth: 'bootstrap',
    idempotencyHeader: true,
    body: organizationsBody,
    bodyValid: valid('OrganizationsRequest'),
    response: 'OrganizationsResponse',
    afterAccepted: newBootstrap,
  },
  {
    name: 'POST /owner-otp/claim',
    share: 0.035,
    method: 'POST',
    path: path('/owner-otp/claim'),
    auth: 'pending',
    idempotencyHeader: true,
    body: schemaValue(plain('OwnerOtpClaimRequest')),
    bodyValid: valid('OwnerOtpClaimRequest'),
    response: 'OwnerOtpClaimResponse',
  },
  {
    name: 'POST /owner-otp/resend',
    share: 0.025,
    method: 'POST',
    path: path('/owner-otp/resend'),
    auth: 'pending',
    idempotencyHeader: true,
    body: schemaValue(plain('OwnerOtpResendRequest')),
    bodyValid: valid('OwnerOtpResendRequest'),
    response: 'OwnerOtpResendResponse',
  },
  {
    name: 'POST /agent-otp/verify',
    share: 0.035,
    method: 'POST',
    path: path('/agent-otp/verify'),
    auth: 'pending',
    idempotencyHeader: true,
    body: schemaValue(plain('AgentOtpVerifyRequest')),
    bodyValid: valid('AgentOtpVerifyRequest'),
    response: 'AgentOtpVerifyResponse',
  },
  {
    name: 'POST /agent-otp/resend',
    share: 0.025,
    method: 'POST',
    path: path('/agent-otp/resend'),
    auth: 'pending',
    idempotencyHeader: true,
    body: schemaValue(plain('AgentOtpResendRequest')),
    bodyValid: valid('AgentOtpResendRequest'),
    response: 'AgentOtpResendResponse',
  },
  {
    name: 'POST /keys/rotate',
    share: 0.025,
    method: 'POST',
    path: path('/keys/rotate'),
    auth: 'installation',
    idempotencyHeader: true,
    body: schemaValue(plain('KeysRotateRequest'), 1),
    bodyValid: valid('KeysRotateRequest'),
    response: 'KeysRotateResponse',
    afterAccepted: async (answer) => {
      // The old key is revoked at once: it becomes the "revoked" credential of later cases.
      keys.revoked = keys.installation;
      keys.installation = (answer.json as { key: { token: string } }).key.token;
    },
  },
  {
    name: 'GET /org/current',
    share: 0.07,
    method: 'GET',
    path: fc.constantFrom(
      '/org/current',
      '/org/current?x=1',
      '/org/current?organization_id=00000000-0000-4000-8000-000000000000',
    ),
    auth: 'installation',
    response: 'OrgCurrentResponse',
    readOnly: true,
  },
  {
    name: 'POST /mcp/search_capabilities',
    share: 0.115,
    method: 'POST',
    path: path('/mcp/search_capabilities'),
    auth: 'optional',
    body: schemaValue(plain('SearchCapabilitiesRequest')),
    bodyValid: valid('SearchCapabilitiesRequest'),
    response: 'SearchCapabilitiesResponse',
    readOnly: true,
  },
  {
    name: 'POST /mcp/describe',
    share: 0.1,
    method: 'POST',
    path: path('/mcp/describe'),
    auth: 'optional',
    body: schemaValue(plain('DescribeRequest')),
    response: 'CapabilityDescription',
    readOnly: true,
    bodyValid: (body) => (valid('DescribeRequest')(body) ? undefined : false),
  },
  {
    name: 'POST /mcp/dry_run',
    share: 0.12,
    method: 'POST',
    path: path('/mcp/dry_run'),
    auth: 'installation',
    body: capabilityCallBody(false),
    bodyValid: (body) => (valid('DryRunRequest')(body) ? undefined : false),
    response: 'DryRunResponse',
    readOnly: true,
  },
  {
    name: 'POST /mcp/invoke',
    share: 0.12,
    method: 'POST',
    path: path('/mcp/invoke'),
    auth: 'installation',
    body: capabilityCallBody(true),
    bodyValid: capabilityBodyValid('InvokeRequest'),
    response: 'InvokeResponse',
  },
  {
    name: 'POST /mcp (JSON-RPC tools/call)',
    share: 0.035,
    method: 'POST',
    path: path('/mcp'),
    auth: 'optional',
    body: mcpMessage(),
    // A JSON-RPC error or a tool error (isError) is a refusal even though HTTP says 200.
    accepted: (answer) => {
      const json = answer.json as { result?: { isError?: boolean } } | undefined;
      return answer.status < 300 && json?.result !== undefined && json.result.isError !== true;
    },
    check: checkMcpAnswer,
  },
  ...adminEndpoints(),
  ...publicEndpoints(),
];

/** The domains' public routes: booking pages and their JSON API, and event ingestion. */
function publicEndpoints(): Endpoint[] {
  const common = { auth: 'public', unwatched: true, check: checkPublicAnswer } as const;
  return [
    { ...common, name: 'GET /book/… (pages, slots)', share: 0.04, method: 'GET', path: bookingPath(targets) },
    {
      ...common,
      name: 'POST /book/…/bookings',
      share: 0.03,
      method: 'POST',
      path: bookingsPath(targets),
      body: bookingBody(targets),
    },
    {
      ...common,
      name: 'POST /a/events',
      share: 0.03,
      method: 'POST',
      path: path('/a/events'),
      body: eventsBody(targets),
    },
  ];
}

/** A public route answers pages in HTML; everything else it answers, and every error, is JSON: the envelope. */
function checkPublicAnswer(answer: FuzzAnswer): void {
  if (answer.status < 400 || answer.contentType?.startsWith('text/html')) return;
  expect(validator.validate('ErrorEnvelope', answer.json), answer.text.slice(0, 300)).toEqual({
    valid: true,
  });
  expect(answer.contentType).toMatch(/^application\/json/);
}

function adminEndpoints(): Endpoint[] {
  const get = (template: string, share: number): Endpoint => ({
    name: `GET ${template}`,
    share,
    method: 'GET',
    path: template.includes(':id') ? adminPath(template) : adminQuery.map((query) => `${template}${query}`),
    auth: 'operator',
    readOnly: true,
  });
  const post = (template: string, share: number, body: keyof typeof adminBodies): Endpoint => ({
    name: `POST ${template}`,
    share,
    method: 'POST',
    path: template.includes(':id') ? adminPath(template) : path(template),
    auth: 'operator',
    idempotencyHeader: template.endsWith('/credit'),
    body: schemaValue(adminBodies[body] as Record<string, unknown>),
  });
  return [
    get('/admin/installations', 0.004),
    get('/admin/installations/:id', 0.004),
    get('/admin/approvals', 0.004),
    get('/admin/approvals/:id', 0.004),
    get('/admin/wallets/:id', 0.004),
    get('/admin/policies/:id', 0.004),
    get('/admin/audit', 0.004),
    get('/admin/audit/verify', 0.001),
    get('/admin/operator-keys', 0.002),
    get('/admin/access', 0.002),
    post('/admin/operator-keys', 0.004, 'operatorKey'),
    post('/admin/installations/:id/approve', 0.004, 'deny'),
    post('/admin/installations/:id/block', 0.004, 'deny'),
    post('/admin/organizations/:id/activate', 0.004, 'deny'),
    post('/admin/approvals/:id/deny', 0.004, 'deny'),
    post('/admin/wallets/:id/credit', 0.006, 'credit'),
    post('/admin/policies/:id', 0.006, 'policy'),
    post('/admin/access', 0.004, 'access'),
    post('/admin/access/invites', 0.004, 'email'),
    post('/admin/mail-suppressions', 0.004, 'suppress'),
    post('/admin/mail-suppressions/remove', 0.004, 'email'),
  ];
}

/** The MCP transport answers JSON-RPC; a tools/call result is the meta-tool's answer or its envelope. */
function checkMcpAnswer(answer: FuzzAnswer, message: unknown): void {
  if (answer.status >= 400) {
    const json = answer.json as { error?: unknown; jsonrpc?: unknown } | undefined;
    const envelope = validator.validate('ErrorEnvelope', json).valid;
    const rpcError = json?.jsonrpc === '2.0' && typeof (json.error as { code?: unknown })?.code === 'number';
    expect(
      envelope || rpcError,
      `neither an envelope nor a JSON-RPC error: ${answer.text.slice(0, 300)}`,
    ).toBe(true);
    return;
  }
  const result = (answer.json as { result?: { isError?: boolean; structuredContent?: unknown } })?.result;
  const tool = (message as { params?: { name?: string } })?.params?.name;
  if (result === undefined || (message as { method?: string })?.method !== 'tools/call') return;
  const responses: Record<string, SchemaName> = {
    search_capabilities: 'SearchCapabilitiesResponse',
    describe: 'CapabilityDescription',
    dry_run: 'DryRunResponse',
    invoke: 'InvokeResponse',
  };
  if (result.isError) {
    if (result.structuredContent === undefined) return;
    expect(validator.validate('ErrorEnvelope', result.structuredContent)).toEqual({ valid: true });
    const code = (result.structuredContent as { error: { code: string } }).error.code;
    expect(code, 'a tool call failed with a server error').not.toMatch(
      /internal_error|dependency_unavailable/,
    );
    return;
  }
  const schema = tool === undefined ? undefined : responses[tool];
  if (schema) expect(validator.validate(schema, result.structuredContent)).toEqual({ valid: true });
}

/** The Authorization header value of an auth case (undefined: no header). */
function authorization(endpoint: Endpoint, auth: AuthCase): string | undefined {
  const own: Record<Auth, string | undefined> = {
    none: undefined,
    optional: keys.installation,
    bootstrap: keys.bootstrap,
    installation: keys.installation,
    pending: keys.pending,
    operator: gateway.operatorKey,
    public: undefined,
  };
  const current = own[endpoint.auth];
  const [prefixPart, secret] = (current ?? keys.installation).split('.');
  switch (auth) {
    case 'current':
      return current === undefined ? undefined : `Bearer ${current}`;
    case 'none':
      return undefined;
    case 'empty bearer':
      return 'Bearer ';
    case 'garbage bearer':
      return 'Bearer !!not-a-key!!';
    case 'basic':
      return `Basic ${Buffer.from(`user:${current ?? ''}`).toString('base64')}`;
    case 'wrong prefix':
      return `Bearer xyz_ak_${(prefixPart ?? '').split('_ak_')[1]}.${secret}`;
    case 'wrong secret':
      return `Bearer ${prefixPart}.${'A'.repeat((secret ?? '').length || 32)}`;
    case 'revoked':
      return `Bearer ${keys.revoked}`;
    case 'expired':
      return `Bearer ${keys.expired}`;
    case 'bootstrap':
      return `Bearer ${keys.bootstrap}`;
    case 'installation':
      return `Bearer ${keys.installation}`;
    case 'operator':
      return `Bearer ${gateway.operatorKey}`;
    case 'double space':
      return `Bearer  ${current ?? keys.installation}`;
    case 'trailing junk':
      return `Bearer ${current ?? keys.installation} extra`;
    case 'long':
      return `Bearer agw_ak_${'a'.repeat(6000)}.${'b'.repeat(1000)}`;
  }
}

/** Whether an auth case presents the credential the endpoint wants (undefined: no opinion). */
function authAccepted(endpoint: Endpoint, auth: AuthCase): boolean | undefined {
  if (endpoint.auth === 'none' || endpoint.auth === 'public') return undefined;
  if (auth === 'current') return true;
  // RFC 9110 allows more than one space between scheme and credentials.
  if (auth === 'double space') return undefined;
  if (endpoint.auth === 'optional' && auth === 'none') return true;
  if (endpoint.auth === 'installation' && auth === 'installation') return true;
  if (endpoint.auth === 'operator' && auth === 'operator') return true;
  if (endpoint.auth === 'bootstrap' && auth === 'bootstrap') return true;
  if (endpoint.auth === 'optional' && auth === 'installation') return true;
  return false;
}

function idempotencyValue(label: string, value: string | undefined): string | undefined {
  const unique = `fz-${randomUUID()}`;
  if (label === 'fresh') return unique;
  if (label === '16 chars') return unique.slice(0, 16);
  if (label === '128 chars') return unique.padEnd(128, 'x');
  if (label === 'quoted') return `"${unique}"`;
  return value;
}

/** Tracks rejected requests since the last trusted fingerprint of the database. */
class StateWatch {
  private baseline: DbFingerprint = {};
  private pending: Array<() => string> = [];
  constructor(private readonly fingerprint: () => Promise<DbFingerprint>) {}

  async reset(): Promise<void> {
    await settleBackgroundWork(gateway.knex);
    this.baseline = await this.fingerprint();
    this.pending = [];
  }

  async rejected(description: () => string): Promise<void> {
    this.pending.push(description);
    if (this.pending.length >= 40) await this.verify();
  }

  /** Fails when the database moved since the baseline while only rejected requests were sent. */
  async verify(): Promise<void> {
    if (this.pending.length === 0) return;
    const now = await this.fingerprint();
    const changed = changedTables(this.baseline, now);
    const suspects = this.pending;
    this.baseline = now;
    this.pending = [];
    if (changed.length > 0) {
      const cases = suspects.map((describe) => describe()).join('\n');
      throw new Error(`rejected requests changed ${changed.join(', ')}; one of:\n${cases}`);
    }
  }
}

let watch: StateWatch;
let casesRun = 0;

beforeAll(async () => {
  const approved = await approvedInstallation(gateway, '1000000');
  keys.installation = approved.key;
  const pendingFlow = await onboard(gateway.client, { agent: true });
  keys.pending = pendingFlow.installationKey;
  const victim = await approvedInstallation(gateway, '10');
  keys.victimInstallationId = victim.installationId;
  keys.victimOrganizationId = victim.organizationId;
  keys.revoked = await insertKey(gateway.knex, 'installation', {
    installationId: approved.installationId,
    revoked: true,
  });
  keys.expired = await insertKey(gateway.knex, 'installation', {
    installationId: approved.installationId,
    expired: true,
  });
  await newBootstrap();
  await createPublicTargets(approved.key);
  watch = new StateWatch(await createFingerprinter(gateway.knex));
  await watch.reset();
  console.info(
    `fuzz: FUZZ_SEED=${budget.seed} FUZZ_RUNS=${budget.totalRuns} (${handledContracts.length} handled capabilities)`,
  );
});

/** Invokes `id` with the approved key and answers its result (setup: a failure stops the suite). */
async function setup(key: string, id: string, params: Record<string, unknown>) {
  const call = (approval_token?: string) =>
    gateway.client.post(
      '/mcp/invoke',
      { id, params, approval_token, idempotency_key: `fuzz-setup-${randomUUID()}` },
      { key, idem: null },
    );
  let answer = await call();
  if (answer.json?.status === 'pending_approval') {
    // issue_secret is high risk: an operator approves it, then it runs with the approval token.
    const { approval_id, approval_token } = answer.json.approval;
    await adminFetch(`${gateway.url}/admin/approvals/${approval_id}/approve`, gateway.operatorKey, {
      body: {},
    });
    answer = await call(approval_token);
  }
  if (answer.status !== 200 || answer.json.result === undefined)
    throw new Error(`${id}: ${answer.status} ${answer.text}`);
  return answer.json.result;
}

/** A calendar open every day with a public and a secret booking link, and an analytics property. */
async function createPublicTargets(key: string): Promise<void> {
  const { calendar } = await setup(key, 'calendar.calendar.manage', {
    operation: 'create',
    name: 'Fuzz calendar',
    timezone: 'Europe/Berlin',
    notification_email: 'fuzz-calendar@example.com',
  });
  await setup(key, 'calendar.availability.manage', {
    operation: 'replace',
    calendar_id: calendar.id,
    rules: [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day_of_week: day, start_time: '00:00', end_time: '23:30' })),
  });
  const { event_type } = await setup(key, 'calendar.event_type.manage', {
    operation: 'create',
    calendar_id: calendar.id,
    name: 'Call',
    duration_minutes: 30,
  });
  const link = (access_mode: 'public' | 'secret') =>
    setup(key, 'calendar.booking_link.manage', {
      operation: 'create',
      calendar_id: calendar.id,
      title: 'Fuzz link',
      access_mode,
      one_time_use: false,
      allowed_event_type_ids: [event_type.id],
      min_notice_minutes: 0,
    });
  targets.publicPath = (await link('public')).url_path;
  const secret = await link('secret');
  targets.secretPath = (
    await setup(key, 'calendar.booking_link.issue_secret', { link_id: secret.link.id })
  ).url_path;
  targets.eventTypeId = event_type.id;
  const { property } = await setup(key, 'analytics.property.manage', {
    operation: 'create',
    name: 'Fuzz site',
    domains: ['localhost'],
  });
  targets.ingestionId = property.ingestion_id;
}

/** One generated request of an endpoint. */
interface FuzzCase {
  readonly path: string;
  readonly body: BodyCase;
  readonly contentType: { value: string | undefined; valid: boolean };
  readonly auth: AuthCase;
  readonly idempotency: { label: string; value: string | undefined; valid: boolean };
}

const caseOf = (endpoint: Endpoint): fc.Arbitrary<FuzzCase> =>
  fc
    .record({
      path: endpoint.path,
      body: fc.oneof(
        {
          weight: 7,
          arbitrary: (endpoint.body ?? fc.constant({})).map((value): BodyCase => ({ kind: 'json', value })),
        },
        { weight: endpoint.method === 'POST' ? 1 : 0, arbitrary: rawBody },
      ),
      contentType: endpoint.method === 'POST' ? contentType : fc.constant({ value: undefined, valid: true }),
      auth: authCase,
      idempotency: endpoint.idempotencyHeader
        ? idempotencyCase
        : fc.constant({ label: 'none', value: undefined, valid: true }),
    })
    .map((testCase) =>
      // fast-check prints counterexamples recursively; deeply nested bodies would overflow its stack.
      Object.assign(testCase, { [fc.toStringMethod]: () => describeCase(testCase) }),
    );

async function runCase(endpoint: Endpoint, testCase: FuzzCase): Promise<void> {
  casesRun += 1;
  const headers: Record<string, string> = {};
  const auth = authorization(endpoint, testCase.auth);
  if (auth !== undefined) headers.Authorization = auth;
  if (testCase.contentType.value !== undefined) headers['Content-Type'] = testCase.contentType.value;
  const idem = idempotencyValue(testCase.idempotency.label, testCase.idempotency.value);
  if (idem !== undefined) headers['Idempotency-Key'] = idem;
  const mcp = endpoint.name.startsWith('POST /mcp (');
  if (mcp) {
    headers.Accept = 'application/json, text/event-stream';
    headers['MCP-Protocol-Version'] = '2025-06-18';
  }
  const jsonBody = testCase.body.kind === 'json' ? testCase.body.value : undefined;
  const payload = mcp ? (jsonBody as { message?: unknown } | undefined)?.message : jsonBody;
  const text = testCase.body.kind === 'raw' ? testCase.body.text : jsonText(payload);
  const bodyOk =
    testCase.body.kind === 'raw'
      ? RAW_MAY_PARSE.has(testCase.body.label)
        ? undefined
        : false
      : endpoint.bodyValid?.(payload);
  const authOk = authAccepted(endpoint, testCase.auth);
  // Operator routes and the MCP transport (JSON-RPC rules, not the agent contract's) take no opinion
  // from bodies or media types here: only a wrong key must be refused there.
  const mustReject =
    endpoint.method === 'POST' &&
    !endpoint.unwatched &&
    (endpoint.auth === 'operator' || mcp
      ? authOk === false
      : bodyOk === false || !testCase.contentType.valid || authOk === false || !testCase.idempotency.valid);
  const mustRejectNoBody = endpoint.method === 'GET' && authOk === false;
  if (!endpoint.readOnly && !mustReject && !endpoint.unwatched) await watch.verify();

  if (process.env.FUZZ_DEBUG)
    process.stderr.write(`${endpoint.name} ${describeCase(testCase).slice(0, 300)}\n`);
  const init = { method: endpoint.method, headers, ...(endpoint.method === 'POST' ? { body: text } : {}) };
  const url = `${gateway.url}${testCase.path}`;
  // A public route limits each client address: each of its cases comes from an address of its own.
  const answer =
    endpoint.auth === 'public' ? await sendFrom(freshLoopbackAddress(), url, init) : await send(url, init);
  // Rendered only when needed: describing a 1 MB body for every case would cost more than sending it.
  const label = () =>
    `${endpoint.name} ${testCase.path} auth=${testCase.auth} ct=${testCase.contentType.value} idem=${testCase.idempotency.label} body=${describeCase(testCase.body.kind === 'raw' ? testCase.body.label : payload)} → ${answer.status} ${answer.text.slice(0, 300)}`;
  const fail = (what: string, detail?: unknown) => {
    throw new Error(`${what}: ${label()}${detail === undefined ? '' : `\n${describeCase(detail)}`}`);
  };
  const conforms = (schema: SchemaName, value: unknown, what: string) => {
    const result = validator.validate(schema, value);
    if (!result.valid) fail(what, result.violations);
  };

  if (answer.status >= 500) fail('a 5xx answer');
  if (endpoint.check) endpoint.check(answer, payload);
  else if (answer.status >= 300) {
    conforms('ErrorEnvelope', answer.json, 'an error that is not the envelope');
    if (answer.contentType !== 'application/json; charset=utf-8') fail('an error that is not JSON');
  } else if (endpoint.response) conforms(endpoint.response, answer.json, 'a 2xx off its response schema');
  else if (typeof answer.json !== 'object') fail('a 2xx without a JSON object');
  const accepted = endpoint.accepted ? endpoint.accepted(answer) : answer.status < 300;
  if ((mustReject || mustRejectNoBody) && accepted) fail('accepted what the contract refuses');
  if (endpoint.unwatched) return;
  if (accepted && !endpoint.readOnly) {
    await endpoint.afterAccepted?.(answer, payload);
    await watch.reset();
  } else {
    await watch.rejected(label);
  }
}

describe('fuzzing every endpoint', () => {
  endpoints.forEach((endpoint, index) => {
    if (process.env.FUZZ_ONLY && !endpoint.name.includes(process.env.FUZZ_ONLY)) return;
    const numRuns = Math.max(1, Math.round(budget.totalRuns * endpoint.share));
    it(`${endpoint.name}: ${numRuns} cases`, { timeout: 600_000 }, async () => {
      try {
        await fc.assert(
          fc.asyncProperty(caseOf(endpoint), (testCase) => runCase(endpoint, testCase)),
          { seed: budget.seed + index, numRuns, endOnFailure: true },
        );
        await watch.verify();
      } finally {
        // A failure must not be blamed on the next endpoint's requests.
        await watch.reset();
      }
    });
  });

  it.skipIf(Boolean(process.env.FUZZ_ONLY))('ran the whole budget', () => {
    expect(casesRun).toBeGreaterThanOrEqual(Math.min(budget.totalRuns, 10_000) * 0.98);
  });
});
