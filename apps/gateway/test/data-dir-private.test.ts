// Issue 12, finding 1: the data folder is private. A gateway started from a typical shell (umask 022)
// on a DATA_DIR it creates itself, after requests that write (registration, organization with its code
// mails, an uploaded document), leaves no path under DATA_DIR that another local user can read or write
// — checked as `nobody` with runuser — and every entry is owner-only (0700/0600). A data folder other
// users can open (an older version made them 0755, PGlite files 0666) is refused at start with one line
// naming the path and the fix; DATA_DIR_ALLOW_SHARED=true starts anyway.
// (Before: 969 of 1 085 files under DATA_DIR/pglite were -rw-rw-rw- in 0755 folders.)

import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, type GatewayHandle, loadConfig, startGateway } from '@agw/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireUnprivilegedUser } from '../../../tests/helpers/require-tool.js';
import { AccessClient, onboard } from './helpers/access-client.js';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';

// runuser needs root and a `nobody` account; elsewhere the unprivileged check skips (in CI: fails).
const noUnprivilegedUser = requireUnprivilegedUser('nobody');

let environment: TestEnvironment;
let parent: string;
let previousUmask: number;

beforeAll(async () => {
  // A typical shell's umask: the gateway must not depend on its caller's.
  previousUmask = process.umask(0o022);
  environment = await createTestEnvironment({ emptyDataDir: true });
  // DATA_DIR does not exist yet (the gateway creates it) and its parent is open to everyone, so only
  // the gateway's own modes stand between `nobody` and the data.
  parent = await mkdtemp(join(tmpdir(), 'agw-private-data-'));
  await chmod(parent, 0o755);
});

afterAll(async () => {
  await environment?.cleanup();
  await rm(parent, { recursive: true, force: true });
  process.umask(previousUmask);
});

async function everyPath(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true });
  return [root, ...entries.map((entry) => join(root, entry))];
}

/** The paths `nobody` may read or write, found by one runuser call over all of them. */
function openToNobody(paths: readonly string[]): string[] {
  const script =
    'for p in "$@"; do test -r "$p" && echo "read $p"; test -w "$p" && echo "write $p"; done; true';
  const result = spawnSync('runuser', ['-u', 'nobody', '--', 'sh', '-c', script, 'sh', ...paths], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  expect(result.status).toBe(0);
  return result.stdout.split('\n').filter((line) => line !== '');
}

describe('a data folder the gateway creates', () => {
  let gateway: GatewayHandle | undefined;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = join(parent, 'data');
    gateway = await startGateway(loadConfig({ ...environment.env, DATA_DIR: dataDir }));
    const client = new AccessClient(gateway.url);
    const flow = await onboard(client);
    await gateway
      .knex('installations')
      .where({ id: flow.installationId })
      .update({ owner_verified_at: gateway.knex.fn.now(), operator_approval_status: 'approved' });
    const organization = await gateway.knex('installations').where({ id: flow.installationId }).first();
    await gateway.knex('wallets').insert({ organization_id: organization.organization_id, balance: '1' });
    const upload = await client.post(
      '/mcp/invoke',
      {
        id: 'documents.document.upload',
        params: { file_name: 'secret.txt', mime_type: 'text/plain', content_base64: 'c2VjcmV0' },
        idempotency_key: 'private-data-upload-1',
      },
      { key: flow.installationKey, idem: null },
    );
    expect(upload.status).toBe(200);
    // Mail is written by the outbox after the response; /health reads the mailbox too.
    for (let waited = 0; (await readdir(join(dataDir, 'mail')).catch(() => [])).length === 0; waited += 50) {
      if (waited > 10_000) throw new Error('no mail written under DATA_DIR/mail in 10 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  afterAll(async () => {
    await gateway?.close();
  });

  it.skipIf(noUnprivilegedUser)(
    `no path under DATA_DIR is readable or writable by another user ${noUnprivilegedUser ?? ''}`,
    async () => {
      const paths = await everyPath(dataDir);
      // The keys and the mailbox; on the embedded default also the PGlite cluster (over 1 000 entries).
      expect(paths.length).toBeGreaterThan(environment.usesPostgres ? 4 : 100);
      expect(openToNobody(paths)).toEqual([]);
    },
  );

  it('every entry under DATA_DIR is owner-only (folders 0700, files 0600)', async () => {
    const open: string[] = [];
    for (const path of await everyPath(dataDir)) {
      const { mode } = await stat(path);
      if ((mode & 0o077) !== 0) open.push(`${(mode & 0o777).toString(8)} ${path}`);
    }
    expect(open).toEqual([]);
    expect(((await stat(dataDir)).mode & 0o777).toString(8)).toBe('700');
  });
});

describe('a data folder other users can open', () => {
  const startOn = (dataDir: string, extra: Record<string, string> = {}) =>
    startGateway(loadConfig({ ...environment.env, DATA_DIR: dataDir, ...extra }));

  it('is refused at start with one line naming the path and the fix', async () => {
    const dataDir = join(parent, 'old-0755');
    await mkdir(dataDir, { mode: 0o755 });
    await chmod(dataDir, 0o755);
    const error = await startOn(dataDir).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toContain(`${dataDir} is open to other users (mode 0755)`);
    expect(message).toContain(`chmod -R go-rwx ${dataDir}`);
    expect(message).toContain('DATA_DIR_ALLOW_SHARED=true');
    expect(message).not.toContain('\n');
  });

  it('is refused when only a key file is open (secret.key 0644)', async () => {
    const dataDir = join(parent, 'open-key');
    await mkdir(dataDir, { mode: 0o700 });
    await writeFile(join(dataDir, 'secret.key'), `${'ab'.repeat(32)}\n`, { mode: 0o644 });
    await chmod(join(dataDir, 'secret.key'), 0o644);
    await expect(startOn(dataDir)).rejects.toThrow(`${join(dataDir, 'secret.key')} is open to other users`);
  });

  it('starts anyway with DATA_DIR_ALLOW_SHARED=true', async () => {
    const dataDir = join(parent, 'shared-on-purpose');
    await mkdir(dataDir, { mode: 0o755 });
    await chmod(dataDir, 0o755);
    const gateway = await startOn(dataDir, { DATA_DIR_ALLOW_SHARED: 'true' });
    try {
      expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});
