import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderIsolationScenarios } from './render-isolation.mjs';

// What the benchmark measures. Each scenario names the baseline it is compared with ('get' or 'post'
// echo), the prototype invoke it is compared with where there is one ('read' or 'mutating') and the
// gateway it runs against ('standard' by default, or 'padded' with 10 000 capabilities).
// `prepare` returns the autocannon request options, or { skip: reason } when the gateway does not serve
// that path yet.
async function probe(baseUrl, path, init) {
  const response = await fetch(new URL(path, baseUrl), init);
  return response.status;
}

export const scenarios = [
  {
    name: 'GET /health',
    baseline: 'get',
    async prepare() {
      return { method: 'GET', path: '/health' };
    },
  },
  {
    name: 'GET /capabilities',
    baseline: 'get',
    async prepare() {
      return { method: 'GET', path: '/capabilities' };
    },
  },
  {
    name: 'search_capabilities (10 000 capabilities)',
    baseline: 'post',
    gateway: 'padded',
    async prepare(baseUrl) {
      const body = JSON.stringify({ query: 'invoice', limit: 10 });
      const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body };
      const status = await probe(baseUrl, '/mcp/search_capabilities', init);
      if (status === 404) return { skip: 'search_capabilities is not served yet (issue 4)' };
      return { method: 'POST', path: '/mcp/search_capabilities', headers: init.headers, body };
    },
  },
  {
    name: 'describe',
    baseline: 'post',
    async prepare(baseUrl) {
      const body = JSON.stringify({ id: 'core.org.current.get' });
      const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body };
      const status = await probe(baseUrl, '/mcp/describe', init);
      if (status === 404) return { skip: 'describe is not served yet (issue 4)' };
      return { method: 'POST', path: '/mcp/describe', headers: init.headers, body };
    },
  },
  // The invoke scenarios run as an installation onboarded and approved through the HTTP API of the
  // benchmarked gateway (see approvedInstallation below).
  {
    name: 'invoke (read, 9 guards)',
    baseline: 'post',
    prototype: 'read',
    async prepare(baseUrl, gateway) {
      const { key } = await approvedInstallation(baseUrl, gateway.dataDir);
      return invokeRequest(key, { id: 'core.org.current.get', params: {} });
    },
  },
  {
    name: 'invoke (mutating, fresh idempotency key)',
    baseline: 'post',
    prototype: 'mutating',
    async prepare(baseUrl, gateway) {
      const { key } = await approvedInstallation(baseUrl, gateway.dataDir);
      const target = await mutatingTarget(baseUrl, key);
      const request = invokeRequest(key, { ...target.body, idempotency_key: 'x'.repeat(32) });
      let counter = 0;
      const prefix = `bench-${Date.now().toString(36)}-`;
      return {
        ...request,
        note: target.note,
        // autocannon calls this per request: each one carries a new idempotency key.
        setupRequest(req) {
          counter += 1;
          const body = {
            ...target.body,
            idempotency_key: `${prefix}${counter.toString().padStart(12, '0')}`,
          };
          return { ...req, body: JSON.stringify(body) };
        },
      };
    },
  },
  {
    name: 'invoke (replay of one key)',
    baseline: 'post',
    async prepare(baseUrl, gateway) {
      const { key } = await approvedInstallation(baseUrl, gateway.dataDir);
      const target = await mutatingTarget(baseUrl, key);
      const request = invokeRequest(key, { ...target.body, idempotency_key: `bench-replay-${Date.now()}` });
      const first = await fetch(new URL(request.path, baseUrl), request);
      if (first.status !== 200) return { skip: `the first invoke answered ${first.status}` };
      return { ...request, note: target.note };
    },
  },
  // A page view as the tracker sends it: public route, no key, committed (group commit) before the 202.
  {
    name: 'POST /a/events (one page view)',
    baseline: 'post',
    async prepare(baseUrl, gateway) {
      const { key } = await approvedInstallation(baseUrl, gateway.dataDir);
      const created = await fetch(new URL('/mcp/invoke', baseUrl), {
        ...invokeRequest(key, {
          id: 'analytics.property.manage',
          params: { operation: 'create', name: 'Bench site', domains: ['bench.example'] },
          idempotency_key: `bench-property-${Date.now()}`,
        }),
      });
      if (created.status !== 200) return { skip: `analytics.property.manage answered ${created.status}` };
      const { result } = await created.json();
      return {
        method: 'POST',
        path: '/a/events',
        headers: {
          'content-type': 'text/plain',
          'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0',
        },
        body: JSON.stringify({
          ingestion_id: result.property.ingestion_id,
          name: 'pageview',
          url: 'https://bench.example/pricing',
          referrer: 'https://www.google.com/',
        }),
      };
    },
  },
  // Issue 26: the same reads while another organization renders the largest billing draft in a loop.
  ...renderIsolationScenarios({
    healthRequest: () => ({ method: 'GET', path: '/health' }),
    async readRequest(baseUrl, gateway) {
      const { key } = await approvedInstallation(baseUrl, gateway.dataDir);
      return invokeRequest(key, { id: 'core.org.current.get', params: {} });
    },
    freshInstallation: onboard,
  }),
];

function invokeRequest(key, body) {
  return {
    method: 'POST',
    path: '/mcp/invoke',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  };
}

/**
 * documents.document.upload once its handler exists (describe answers 200 only for capabilities with a
 * handler); until then wallet.agent_budget.guard.check, which is a read: then the scenario measures the
 * chain with an idempotency key in the body but no idempotency record (noted in the report).
 */
async function mutatingTarget(baseUrl, key) {
  const described = await fetch(new URL('/mcp/describe', baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ id: 'documents.document.upload' }),
  });
  if (described.status === 200) {
    const params = {
      file_name: 'bench.txt',
      mime_type: 'text/plain',
      content_base64: Buffer.from('agent gateway bench\n').toString('base64'),
    };
    return { body: { id: 'documents.document.upload', params }, note: 'documents.document.upload' };
  }
  return {
    body: {
      id: 'wallet.agent_budget.guard.check',
      params: { capability_id: 'core.org.current.get', estimated_cost_credits: 1 },
    },
    note: 'fallback: wallet.agent_budget.guard.check (not mutating; documents.document.upload has no handler yet)',
  };
}

const installations = new Map();

/**
 * One approved installation per gateway: register, organization, owner code from the dev mailbox,
 * approval and a wallet credit with the operator key.
 */
function approvedInstallation(baseUrl, dataDir) {
  let setup = installations.get(baseUrl);
  if (setup === undefined) {
    setup = onboard(baseUrl, dataDir);
    installations.set(baseUrl, setup);
  }
  return setup;
}

async function onboard(baseUrl, dataDir) {
  const tag = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const owner = `owner-${tag}@example.com`;
  const post = async (path, body, key) => {
    const headers = { 'content-type': 'application/json', 'idempotency-key': `bench-setup-${tag}-${path}` };
    if (key) headers.authorization = `Bearer ${key}`;
    const response = await fetch(new URL(path, baseUrl), {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    const json = await response.json();
    if (response.status >= 300)
      throw new Error(`bench set-up ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  const registered = await post('/register', {
    owner_email: owner,
    app: { slug: `bench-${tag}`, name: 'Bench' },
  });
  const organization = await post(
    '/organizations',
    { owner_email: owner, organization: { name: `Bench ${tag}` } },
    registered.bootstrap_key.token,
  );
  const key = organization.installation_key.token;
  const installationId = organization.installation.id;
  await post('/owner-otp/claim', { otp: await ownerCode(dataDir, owner) }, key);
  const operatorKey = readFileSync(join(dataDir, 'operator.key'), 'utf8').trim();
  await post(`/admin/installations/${installationId}/approve`, {}, operatorKey);
  // Paid capabilities (documents.document.upload costs 0.02 credits) need a balance for the whole run.
  await post(`/admin/wallets/${organization.organization.id}/credit`, { amount: '1000000' }, operatorKey);
  return { key, installationId };
}

/** The owner code of `to` from the dev mailbox (DATA_DIR/mail/*.eml), waiting for the outbox. */
async function ownerCode(dataDir, to) {
  const directory = join(dataDir, 'mail');
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const files = existsSync(directory) ? readdirSync(directory).filter((name) => name.endsWith('.eml')) : [];
    for (const file of files) {
      const text = readFileSync(join(directory, file), 'utf8').replaceAll('\r\n', '\n');
      if (!text.includes(to)) continue;
      const code = /^Code: (?<otp>[0-9]{6,8})$/m.exec(text.replace(/=\n/g, ''))?.groups?.otp;
      if (code) return code;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`bench set-up: no owner code for ${to} in ${directory}`);
}
