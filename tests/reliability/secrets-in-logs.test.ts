// Secrets never reach the log: a gateway logging at `trace` into memory goes through a full onboarding
// (both codes, wrong codes first), an operator approval, a key rotation, invokes, MCP calls, operator
// calls, and requests that carry keys and codes in odd places (query strings, body fields named
// token/otp/key, Authorization variants, other headers, the URL path). Afterwards the captured log
// holds no issued key (neither whole nor its secret part), no code and no operator key.
import { createLogger } from '@agw/gateway';
import { beforeAll, describe, expect, it } from 'vitest';
import { registration } from '../../apps/gateway/test/helpers/access-client.js';
import { useGateway } from '../../apps/gateway/test/helpers/gateway.js';
import { readDevMailbox, waitUntil } from '../../apps/gateway/test/helpers/mail-sink.js';
import { rawMcp } from '../../apps/gateway/test/helpers/mcp.js';

const lines: string[] = [];
const logger = createLogger({
  level: 'trace',
  destination: { write: (line: string) => void lines.push(line) },
});
const gateway = useGateway({ logger });

/** Every secret the run saw; the log must contain none of them. */
const secrets = new Map<string, string>();
function remember(label: string, token: string): void {
  secrets.set(label, token);
  // The part after the dot is the secret of `agw_ak_<prefix>.<secret>`.
  const secret = token.split('.')[1];
  if (secret) secrets.set(`${label} (secret part)`, secret);
}

async function codeFor(to: string, after = 0): Promise<string> {
  return waitUntil(async () => {
    const mails = (await readDevMailbox(gateway.dataDir)).filter((mail) => mail.to.includes(to));
    const mail = mails[mails.length - 1];
    if (!mail || mails.length <= after) return undefined;
    return /^Code: (\S+)$/m.exec(mail.body)?.[1];
  });
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'Idempotency-Key': `log-${crypto.randomUUID()}`,
      ...headers,
    },
    body: JSON.stringify(body),
  });
const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${gateway.url}${path}`, { headers });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

beforeAll(async () => {
  remember('operator key', gateway.operatorKey);
  const body = registration({ agent: true });
  const registered = await (await post('/register', body)).json();
  const bootstrap = registered.bootstrap_key.token as string;
  remember('bootstrap key', bootstrap);
  const organization = await (
    await post(
      '/organizations',
      { owner_email: body.owner_email, agent_email: body.agent_email, organization: { name: 'Log Org' } },
      bearer(bootstrap),
    )
  ).json();
  let key = organization.installation_key.token as string;
  remember('installation key', key);
  const installationId = organization.installation.id as string;

  // Wrong codes first, then the right ones (both kinds), then the operator's approval.
  const ownerCode = await codeFor(body.owner_email);
  const agentCode = await codeFor(body.agent_email as string);
  secrets.set('owner code', ownerCode);
  secrets.set('agent code', agentCode);
  await post('/owner-otp/claim', { otp: '000000' }, bearer(key));
  await post('/agent-otp/verify', { otp: ownerCode }, bearer(key));
  expect((await post('/owner-otp/claim', { otp: ownerCode }, bearer(key))).status).toBe(200);
  expect((await post('/agent-otp/verify', { otp: agentCode }, bearer(key))).status).toBe(200);
  expect(
    (await post(`/admin/installations/${installationId}/approve`, {}, bearer(gateway.operatorKey))).status,
  ).toBe(200);

  const rotated = await (await post('/keys/rotate', {}, bearer(key))).json();
  const oldKey = key;
  key = rotated.key.token;
  remember('rotated key', key);
  const created = await (
    await post('/admin/operator-keys', { label: 'second' }, bearer(gateway.operatorKey))
  ).json();
  remember('second operator key', created.token);
  await gateway.knex('wallets').insert({ organization_id: organization.organization.id, balance: '10' });

  // Ordinary work with the keys.
  await get('/org/current', bearer(key));
  await post('/mcp/invoke', { id: 'core.org.current.get', params: {} }, bearer(key));
  await post(
    '/mcp/invoke',
    {
      id: 'documents.document.upload',
      params: { file_name: 'a.txt', mime_type: 'text/plain', content_base64: 'aGk=' },
      idempotency_key: `upload-${crypto.randomUUID()}`,
    },
    bearer(key),
  );
  await post('/mcp/dry_run', { id: 'core.org.current.get', params: {} }, bearer(key));
  await rawMcp(
    gateway.url,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'invoke', arguments: { id: 'core.org.current.get', params: {} } },
    },
    { ...bearer(key), 'MCP-Protocol-Version': '2025-06-18' },
  );
  await rawMcp(gateway.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, bearer(oldKey));
  await get('/admin/installations', bearer(gateway.operatorKey));
  await get('/admin/audit', bearer(created.token));

  // Keys and codes in odd places: every one of these must be refused or ignored without being logged.
  const everything = [key, oldKey, bootstrap, gateway.operatorKey];
  for (const token of everything) {
    await get(`/org/current?key=${token}&token=${token}&otp=${ownerCode}`, bearer(token));
    await get(`/mcp/jobs/${token}`, bearer(key));
    await get(`/${token}`);
    await post('/register', {
      token,
      otp: agentCode,
      key: token,
      installation_key: token,
      nested: { secret: token },
    });
    await post('/mcp/invoke', { id: 'core.org.current.get', params: { token, api_key: token } }, bearer(key));
    await post('/owner-otp/claim', { otp: token }, bearer(key));
    for (const authorization of [
      `bearer ${token}`,
      `Bearer  ${token}`,
      token,
      `Token ${token}`,
      `Basic ${Buffer.from(`u:${token}`).toString('base64')}`,
      `Bearer ${token}x`,
    ]) {
      await get('/org/current', { Authorization: authorization });
      await post('/mcp/describe', { id: 'core.org.current.get' }, { Authorization: authorization });
    }
    await get('/org/current', {
      'X-Api-Key': token,
      Cookie: `session=${token}`,
      'User-Agent': `agent ${token}`,
    });
    await post(
      '/keys/rotate',
      {},
      { ...bearer(`${token.slice(0, -1)}Z`), 'Idempotency-Key': token.replaceAll('.', '-') },
    );
    await rawMcp(
      gateway.url,
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'invoke', arguments: { id: 'x.y.z', params: { token } } },
      },
      bearer(token),
    );
  }
  // Let the outbox, the audit sealer and any deferred log line settle.
  await new Promise((resolve) => setTimeout(resolve, 1500));
}, 120_000);

describe('the captured trace-level log', () => {
  it('recorded the run (requests, failures and debug lines)', () => {
    const text = lines.join('');
    expect(lines.length).toBeGreaterThan(90);
    expect(text).toContain('"path":"/owner-otp/claim"');
    expect(text).toContain('"path":"/admin/installations"');
    expect(text).toContain('"path":"/mcp"');
  });

  it('holds none of the issued keys, their secret parts, the codes or the operator keys', () => {
    const text = lines.join('');
    expect(secrets.size).toBeGreaterThanOrEqual(12);
    const leaked = [...secrets].filter(([, secret]) =>
      // Codes are digits: match them as a whole token, not inside a UUID or a timestamp.
      new RegExp(`(?<![0-9A-Za-z])${secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![0-9A-Za-z])`).test(
        text,
      ),
    );
    expect(leaked.map(([label]) => label)).toEqual([]);
  });

  it('every line is one JSON object (no log injection through the odd inputs)', () => {
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });
});
