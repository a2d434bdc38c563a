// The first operator key: created at the first gateway start (after migrations) when no active
// operator key exists, written to DATA_DIR/operator.key with mode 0600, its path logged and never its
// value; reused at restart; a stale file only warns while other keys exist; a new one is written once
// no active key is left.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig, startGateway } from '@agw/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminFetch, insertKey, readOperatorKeyFile } from './helpers/admin-fixtures.js';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';
import { captureLog } from './helpers/log-capture.js';

let environment: TestEnvironment;

beforeAll(async () => {
  environment = await createTestEnvironment();
});

afterAll(async () => {
  await environment?.cleanup();
});

describe('DATA_DIR/operator.key', () => {
  it('is created once with mode 0600, works, is reused at restart, and its value is never logged', async () => {
    const config = loadConfig(environment.env);
    const path = join(environment.dataDir, 'operator.key');
    const firstLog = captureLog();
    const first = await startGateway(config, { logger: firstLog.logger });
    let token: string;
    try {
      token = await readOperatorKeyFile(environment.dataDir);
      expect(token).toMatch(/^agw_ak_[A-Za-z0-9]{12}\.[A-Za-z0-9]{38}$/);
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      const created = firstLog
        .entries()
        .find((entry) => String(entry.msg).includes('created the first operator key'));
      expect(created).toMatchObject({ path, prefix: token.slice(7, 19) });
      expect(firstLog.text()).not.toContain(token.split('.')[1]);
      expect((await adminFetch(`${first.url}/admin/operator-keys`, token)).status).toBe(200);
    } finally {
      await first.close();
    }

    const secondLog = captureLog();
    const second = await startGateway(config, { logger: secondLog.logger });
    try {
      expect(await readOperatorKeyFile(environment.dataDir)).toBe(token);
      const keys = await second.knex('api_keys').where({ kind: 'operator' });
      expect(keys).toHaveLength(1);
      expect(secondLog.text()).toContain('holds an active operator key');
      expect(secondLog.text()).not.toContain(token.split('.')[1]);
    } finally {
      await second.close();
    }
  });

  it('only warns when the file key was revoked while another key is active, then replaces it once none is', async () => {
    const config = loadConfig(environment.env);
    const before = await readOperatorKeyFile(environment.dataDir);
    const setup = await startGateway(config, { logger: captureLog().logger });
    try {
      await insertKey(setup.knex, 'operator');
      await setup
        .knex('api_keys')
        .where({ prefix: before.slice(7, 19) })
        .update({ revoked_at: setup.knex.fn.now() });
    } finally {
      await setup.close();
    }

    const warned = captureLog();
    const restarted = await startGateway(config, { logger: warned.logger });
    try {
      expect(await readOperatorKeyFile(environment.dataDir)).toBe(before);
      const warning = warned.entries().find((entry) => entry.level === 40);
      expect(String(warning?.msg)).toMatch(/no longer works \(revoked\)/);
      // Now leave no active operator key at all.
      await restarted
        .knex('api_keys')
        .where({ kind: 'operator' })
        .update({ revoked_at: restarted.knex.fn.now() });
    } finally {
      await restarted.close();
    }

    const recovered = await startGateway(config, { logger: captureLog().logger });
    try {
      const after = await readOperatorKeyFile(environment.dataDir);
      expect(after).not.toBe(before);
      expect((await stat(join(environment.dataDir, 'operator.key'))).mode & 0o777).toBe(0o600);
      expect((await adminFetch(`${recovered.url}/admin/installations`, after)).status).toBe(200);
    } finally {
      await recovered.close();
    }
  });
});
