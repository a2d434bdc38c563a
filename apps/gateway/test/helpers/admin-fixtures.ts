import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateApiKey } from '@agw/guard';
import type { Knex } from 'knex';

/** The states an installation's codes can be in when the operator looks at it. */
export interface InstallationSetup {
  readonly ownerVerified: boolean;
  /** undefined: no agent mailbox; otherwise whether its code was verified. */
  readonly agentVerified?: boolean | undefined;
  readonly status?: 'pending' | 'approved' | 'blocked';
}

/** Ids of the rows {@link insertInstallation} created. */
export interface InsertedInstallation {
  readonly installationId: string;
  readonly organizationId: string;
  readonly appId: string;
  readonly slug: string;
}

/**
 * Inserts an app, an organization and an installation in the given state straight into the tables
 * (the onboarding endpoints are tested elsewhere; these tests only need the operator's view of them).
 */
export async function insertInstallation(
  knex: Knex,
  setup: InstallationSetup,
): Promise<InsertedInstallation> {
  const tag = randomBytes(4).toString('hex');
  const slug = `app-${tag}`;
  const agentEmail = setup.agentVerified === undefined ? null : `agent-${tag}@agents.example`;
  const [app] = await knex('apps')
    .insert({ slug, name: `App ${tag}`, owner_email: `owner-${tag}@example.com`, agent_email: agentEmail })
    .returning('id');
  const [organization] = await knex('organizations')
    .insert({ name: `Org ${tag}`, short_id: `org_${tag}` })
    .returning('id');
  const [installation] = await knex('installations')
    .insert({
      organization_id: organization.id,
      app_id: app.id,
      owner_email: `owner-${tag}@example.com`,
      owner_user_id: randomUUID(),
      sb_user_id: `sb_${tag}`,
      agent_email: agentEmail,
      owner_verified_at: setup.ownerVerified ? knex.fn.now() : null,
      agent_email_verified_at: setup.agentVerified ? knex.fn.now() : null,
      operator_approval_status: setup.status ?? 'pending',
      scopes: ['billing:read'],
    })
    .returning('id');
  return { installationId: installation.id, organizationId: organization.id, appId: app.id, slug };
}

/** Inserts a key of the given kind and returns its token (for the "wrong kind of key" cases). */
export async function insertKey(
  knex: Knex,
  kind: 'installation' | 'bootstrap' | 'operator',
  extra: { installationId?: string; revoked?: boolean; expired?: boolean } = {},
): Promise<string> {
  const key = generateApiKey();
  await knex('api_keys').insert({
    prefix: key.prefix,
    secret_hash: key.hash,
    kind,
    installation_id: extra.installationId ?? null,
    scopes: kind === 'operator' ? ['operator:admin'] : ['billing:read'],
    revoked_at: extra.revoked ? knex.fn.now() : null,
    expires_at: extra.expired ? knex.raw("now() - interval '1 minute'") : null,
  });
  return key.token;
}

/** The token the gateway wrote to DATA_DIR/operator.key at its first start. */
export async function readOperatorKeyFile(dataDir: string): Promise<string> {
  return (await readFile(join(dataDir, 'operator.key'), 'utf8')).trim();
}

/** fetch with an operator (or any) bearer token and an optional JSON body. */
export async function adminFetch(
  url: string,
  token: string | undefined,
  init: { method?: 'GET' | 'POST'; body?: unknown } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
