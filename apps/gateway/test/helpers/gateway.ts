import { type GatewayHandle, loadConfig, type StartOptions, startGateway } from '@agw/gateway';
import type { Knex } from 'knex';
import { afterAll, beforeAll } from 'vitest';
import { AccessClient, onboard } from './access-client.js';
import { readOperatorKeyFile } from './admin-fixtures.js';
import { createTestEnvironment, type TestEnvironment } from './environment.js';

/** The gateway of one test file; its fields are set once `beforeAll` ran (use them inside tests). */
export interface GatewayFixture {
  readonly gateway: GatewayHandle;
  readonly url: string;
  readonly knex: Knex;
  readonly environment: TestEnvironment;
  readonly dataDir: string;
  /** A raw-HTTP client of the access endpoints and meta-tools. */
  readonly client: AccessClient;
  /** The first operator key, read from DATA_DIR/operator.key. */
  readonly operatorKey: string;
}

/**
 * Starts one real gateway (ephemeral port, fresh DATA_DIR and, with DATABASE_URL, a fresh database)
 * for the calling test file in `beforeAll` and closes it in `afterAll`.
 */
export function useGateway(
  options: StartOptions & { readonly env?: Record<string, string> } = {},
): GatewayFixture {
  const { env, ...start } = options;
  let state: GatewayFixture | undefined;
  beforeAll(async () => {
    const environment = await createTestEnvironment();
    const gateway = await startGateway(loadConfig({ ...environment.env, ...env }), start);
    state = {
      gateway,
      url: gateway.url,
      knex: gateway.knex,
      environment,
      dataDir: environment.dataDir,
      client: new AccessClient(gateway.url),
      operatorKey: await readOperatorKeyFile(environment.dataDir),
    };
  });
  afterAll(async () => {
    await state?.gateway.close();
    await state?.environment.cleanup();
  });
  const current = (): GatewayFixture => {
    if (state === undefined) throw new Error('the gateway starts in beforeAll; use the fixture inside tests');
    return state;
  };
  return {
    get gateway() {
      return current().gateway;
    },
    get url() {
      return current().url;
    },
    get knex() {
      return current().knex;
    },
    get environment() {
      return current().environment;
    },
    get dataDir() {
      return current().dataDir;
    },
    get client() {
      return current().client;
    },
    get operatorKey() {
      return current().operatorKey;
    },
  };
}

/** Onboards over HTTP and approves the installation in the tables; an optional wallet balance. */
export async function approvedInstallation(gateway: GatewayFixture, balance?: string) {
  const flow = await onboard(gateway.client);
  await gateway
    .knex('installations')
    .where({ id: flow.installationId })
    .update({ owner_verified_at: gateway.knex.fn.now(), operator_approval_status: 'approved' });
  const row = await gateway.knex('installations').where({ id: flow.installationId }).first();
  if (balance !== undefined) {
    await gateway.knex('wallets').insert({ organization_id: row.organization_id, balance });
  }
  return {
    key: flow.installationKey,
    installationId: flow.installationId,
    organizationId: row.organization_id as string,
  };
}
