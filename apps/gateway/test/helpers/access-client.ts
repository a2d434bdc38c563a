import { randomUUID } from 'node:crypto';
import { parseJsonOrUndefined } from './http.js';

/** One HTTP answer with its raw text and parsed JSON. */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and validate them with schemas.
  readonly json: any;
}

/** Options of one access call. */
export interface CallOptions {
  readonly key?: string;
  /** The Idempotency-Key; a fresh UUID when omitted, none when null. */
  readonly idem?: string | null;
}

/** A tiny client for the access endpoints over real HTTP. */
export class AccessClient {
  constructor(readonly baseUrl: string) {}

  async post(path: string, body: unknown, options: CallOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (options.key) headers.Authorization = `Bearer ${options.key}`;
    const idem = options.idem === undefined ? `test-${randomUUID()}` : options.idem;
    if (idem !== null) headers['Idempotency-Key'] = idem;
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return read(response);
  }

  async get(path: string, key?: string): Promise<Answer> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      headers: key ? { Authorization: `Bearer ${key}` } : {},
    });
    return read(response);
  }
}

async function read(response: Response): Promise<Answer> {
  const text = await response.text();
  const json = parseJsonOrUndefined(text);
  return { status: response.status, headers: response.headers, text, json };
}

let counter = 0;

/** A unique registration body; `agent` adds an agent_email. */
export function registration(options: { agent?: boolean; owner?: string } = {}) {
  counter += 1;
  const tag = `${Date.now().toString(36)}${counter}`;
  return {
    owner_email: options.owner ?? `owner-${tag}@example.com`,
    ...(options.agent ? { agent_email: `agent-${tag}@example.com` } : {}),
    app: { slug: `app-${tag}`, name: `App ${tag}` },
  };
}

/** Registers and creates the organization; returns every answer and the keys. */
export async function onboard(client: AccessClient, options: { agent?: boolean } = {}) {
  const body = registration(options);
  const registered = await client.post('/register', body);
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${registered.text}`);
  const orgBody = {
    owner_email: body.owner_email,
    ...(body.agent_email ? { agent_email: body.agent_email } : {}),
    organization: { name: `Org of ${body.app.slug}` },
  };
  const organization = await client.post('/organizations', orgBody, {
    key: registered.json.bootstrap_key.token,
  });
  if (organization.status !== 201)
    throw new Error(`organizations: ${organization.status} ${organization.text}`);
  return {
    body,
    orgBody,
    registered,
    organization,
    bootstrapKey: registered.json.bootstrap_key.token as string,
    installationKey: organization.json.installation_key.token as string,
    installationId: organization.json.installation.id as string,
  };
}
