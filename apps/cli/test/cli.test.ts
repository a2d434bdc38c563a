// The `agw` binary as a user runs it (spawned from source): --version, --help with examples, the
// config-error exit code, `migrate` output, and `serve` answering /health then exiting 0 on SIGTERM.
// Operator commands are covered in operator-*.test.ts and mail.test.ts.
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allMigrations } from '@agw/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliEnvironment, runCli, spawnCli } from './helpers/run-cli.js';

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

let environment: Awaited<ReturnType<typeof createCliEnvironment>>;

beforeAll(async () => {
  environment = await createCliEnvironment();
});

afterAll(async () => {
  await environment?.cleanup();
});

describe('agw', () => {
  it('--version prints the package version', async () => {
    const result = await runCli(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: `${packageJson.version}\n` });
  });

  it.each([
    [[]],
    [['serve']],
    [['migrate']],
    [['installations', 'list']],
    [['operator', 'key', 'create']],
    [['mail', 'show']],
  ])('%j --help lists options with examples', async (command) => {
    const result = await runCli([...command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: agw');
    expect(result.stdout).toContain('Examples:');
  });

  it('exits 2 with a one-line message and no stack when PORT is bad', async () => {
    const result = await runCli(['serve'], { ...environment.env, PORT: 'abc' });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('agw: PORT must be an integer from 0 to 65535 (got "abc")\n');
  });

  it("exits 2 with one line when a domain's variable is bad, before anything starts", async () => {
    const result = await runCli(['serve', '--port', '0'], {
      ...environment.env,
      CALENDAR_ORG_BOOKINGS_PER_HOUR: 'abc',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'agw: CALENDAR_ORG_BOOKINGS_PER_HOUR must be an integer from 1 to 1000000 (got "abc")\n',
    );
  });

  it('exits 2 when --port is bad, whatever PORT says', async () => {
    const result = await runCli(['serve', '--port', '99999'], { ...environment.env, PORT: '8080' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('(got "99999")');
  });

  it('exits 2 with one line naming the path and the fix when DATA_DIR is open to other users', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agw-cli-shared-'));
    await chmod(dataDir, 0o755);
    try {
      const result = await runCli(['serve', '--port', '0'], { ...environment.env, DATA_DIR: dataDir });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `agw: DATA_DIR: ${dataDir} is open to other users (mode 0755); fix it with \`chmod -R go-rwx ${dataDir}\`, or set DATA_DIR_ALLOW_SHARED=true to start anyway\n`,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('migrate applies the gateway migrations once and reports what ran', async () => {
    const first = await runCli(['migrate'], environment.env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Applied 20261122000000_create_audit_events');
    const second = await runCli(['migrate'], environment.env);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`Already up to date: ${allMigrations().length} migration(s) applied.`);
  });

  it('serve answers /health on an ephemeral port and exits 0 on SIGTERM', async () => {
    const child = spawnCli(['serve', '--port', '0', '--host', '127.0.0.1'], environment.env);
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /Agent Gateway listening on (http:\/\/[^"\s]+)/.exec(stdout);
        if (match?.[1]) resolve(match[1]);
      });
      child.on('close', (code) => reject(new Error(`serve exited early with ${code}: ${stdout}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));

    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { status: string }).status).toBe('ok');

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toContain('Agent Gateway stopped');
  });

  it('exits 1 with one line and no stack when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = await runCli(['serve', '--port', String(port)], environment.env);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`agw: listen EADDRINUSE: address already in use 127.0.0.1:${port}\n`);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('exits 1 with one line when the database is unreachable, without printing its password', async () => {
    const result = await runCli(['migrate'], {
      ...environment.env,
      DATABASE_URL: 'postgres://agw:hunter2@127.0.0.1:1/agw',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^agw: .*ECONNREFUSED.*\n$/);
    expect(result.stderr).not.toContain('hunter2');
  });
});
