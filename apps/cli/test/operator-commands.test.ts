// The operator commands as plain functions against a gateway started in this process: tables and
// --json output, the key taken from DATA_DIR/operator.key or AGW_OPERATOR_KEY, and the exit code of
// each kind of failure (2 config, 3 auth, 4 conflict, 5 gateway unreachable). The spawned binary is
// covered in operator-e2e.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertInstallation, insertKey } from '../../gateway/test/helpers/admin-fixtures.js';
import { accessInvite, accessInvites, accessSetMode, accessShow } from '../src/commands/access.js';
import {
  installationsApprove,
  installationsBlock,
  installationsList,
  installationsShow,
} from '../src/commands/installations.js';
import { mailSuppress, mailSuppressions, mailUnsuppress } from '../src/commands/mail.js';
import { operatorKeyCreate, operatorKeyList, operatorKeyRevoke } from '../src/commands/operator-keys.js';
import { orgsActivate, orgsDeactivate } from '../src/commands/orgs.js';
import { ExitError } from '../src/io.js';
import { captureContext, startTestGateway, type TestGateway } from './helpers/test-gateway.js';

let test: TestGateway;

beforeAll(async () => {
  test = await startTestGateway();
});

afterAll(async () => {
  await test?.close();
});

async function exitCodeOf(action: Promise<unknown>): Promise<number> {
  const error = await action.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ExitError);
  return (error as ExitError).exitCode;
}

describe('installations', () => {
  it('lists pending installations as an aligned table and as JSON', async () => {
    const { installationId, slug } = await insertInstallation(test.gateway.knex, {
      ownerVerified: false,
      agentVerified: false,
    });
    const table = captureContext(test.env);
    await installationsList({ status: 'pending' }, table.context);
    const lines = table.stdout().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+ORGANIZATION\s+APP\s+OWNER\s+OWNER OK\s+AGENT MAIL\s+AGE$/);
    const row = lines.find((line) => line.startsWith(installationId));
    expect(row).toMatch(new RegExp(`pending .*${slug}.* no .*\\(pending\\)`));
    // Aligned: the STATUS column starts at the same offset on every line.
    expect(new Set(lines.slice(1).map((line) => line.indexOf('pending')))).toHaveProperty('size', 1);
    expect(table.stdout()).not.toContain('\u001b['); // no colour when not a TTY

    const json = captureContext(test.env);
    await installationsList({ status: 'pending', json: true }, json.context);
    const parsed = JSON.parse(json.stdout()) as { installations: Array<{ id: string }> };
    expect(parsed.installations.map((item) => item.id)).toContain(installationId);
  });

  it('colours statuses only on a TTY, and never with NO_COLOR', async () => {
    const tty = captureContext(test.env, true);
    await installationsList({}, tty.context);
    expect(tty.stdout()).toContain('\u001b[');
    const noColor = captureContext({ ...test.env, NO_COLOR: '1' }, true);
    await installationsList({}, noColor.context);
    expect(noColor.stdout()).not.toContain('\u001b[');
  });

  it('shows one installation', async () => {
    const { installationId, slug } = await insertInstallation(test.gateway.knex, { ownerVerified: true });
    const out = captureContext(test.env);
    await installationsShow(installationId, {}, out.context);
    expect(out.stdout()).toMatch(/ready for approval\s+yes/);
    expect(out.stdout()).toContain(slug);
    expect(out.stdout()).toMatch(/agent mailbox\s+not required/);
  });

  it('refuses approval with exit 4 and the hint while a code is unredeemed', async () => {
    const { installationId } = await insertInstallation(test.gateway.knex, {
      ownerVerified: true,
      agentVerified: false,
    });
    const out = captureContext(test.env);
    const error = await installationsApprove(installationId, {}, out.context).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ExitError);
    expect((error as ExitError).exitCode).toBe(4);
    expect((error as ExitError).message).toMatch(
      /agent mailbox code has not been verified\. \(conflict, HTTP 409\)/,
    );
    expect((error as ExitError).message).toMatch(/hint: /);
  });

  it('approves and blocks, reporting what changed', async () => {
    const { installationId } = await insertInstallation(test.gateway.knex, {
      ownerVerified: true,
      agentVerified: true,
    });
    const approved = captureContext(test.env);
    await installationsApprove(installationId, {}, approved.context);
    expect(approved.stdout()).toMatch(
      new RegExp(`Installation ${installationId} .* approved \\(was pending\\)`),
    );
    const again = captureContext(test.env);
    await installationsApprove(installationId, { json: true }, again.context);
    expect(JSON.parse(again.stdout())).toMatchObject({
      changed: false,
      installation: { operator_approval_status: 'approved' },
    });
    const blocked = captureContext(test.env);
    await installationsBlock(installationId, {}, blocked.context);
    expect(blocked.stdout()).toMatch(/blocked \(was approved\)/);
  });

  it('exits 5 for an unknown installation (404)', async () => {
    expect(
      await exitCodeOf(
        installationsShow('00000000-0000-4000-8000-000000000000', {}, captureContext(test.env).context),
      ),
    ).toBe(5);
  });
});

describe('credentials and connection', () => {
  it('prefers AGW_OPERATOR_KEY over the key file, and exits 3 when that key is not an operator key', async () => {
    const { installationId } = await insertInstallation(test.gateway.knex, { ownerVerified: true });
    const installationKey = await insertKey(test.gateway.knex, 'installation', { installationId });
    const out = captureContext({ ...test.env, AGW_OPERATOR_KEY: installationKey });
    const error = (await installationsList({}, out.context).catch((caught: unknown) => caught)) as ExitError;
    expect(error.exitCode).toBe(3);
    expect(error.message).toContain('forbidden, HTTP 403');
    expect(error.message).not.toContain(installationKey.split('.')[1]);
  });

  it('exits 3 for a revoked operator key', async () => {
    const revoked = await insertKey(test.gateway.knex, 'operator', { revoked: true });
    expect(
      await exitCodeOf(
        installationsList({}, captureContext({ ...test.env, AGW_OPERATOR_KEY: revoked }).context),
      ),
    ).toBe(3);
  });

  it('exits 2 when there is no key file and no AGW_OPERATOR_KEY', async () => {
    const out = captureContext({ AGW_URL: test.env.AGW_URL, DATA_DIR: '/nonexistent/agw-data' });
    const error = (await installationsList({}, out.context).catch((caught: unknown) => caught)) as ExitError;
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain('/nonexistent/agw-data/operator.key');
  });

  it('exits 2 for a URL that is not http(s), 5 when nothing listens there', async () => {
    expect(await exitCodeOf(installationsList({ url: 'ftp://x' }, captureContext(test.env).context))).toBe(2);
    const error = (await installationsList(
      { url: 'http://127.0.0.1:1' },
      captureContext(test.env).context,
    ).catch((caught: unknown) => caught)) as ExitError;
    expect(error.exitCode).toBe(5);
    expect(error.message).toMatch(/is the gateway running/);
  });
});

describe('orgs, access, mail suppressions, operator keys', () => {
  it('deactivates and activates an organization', async () => {
    const { organizationId } = await insertInstallation(test.gateway.knex, { ownerVerified: true });
    const off = captureContext(test.env);
    await orgsDeactivate(organizationId, {}, off.context);
    expect(off.stdout()).toMatch(/is now inactive/);
    const on = captureContext(test.env);
    await orgsActivate(organizationId, { json: true }, on.context);
    expect(JSON.parse(on.stdout())).toMatchObject({ changed: true, organization: { is_active: true } });
  });

  it('switches access to invite-only, invites, lists, and switches back', async () => {
    const set = captureContext(test.env);
    await accessSetMode('invite_only', {}, set.context);
    expect(set.stdout()).toMatch(/invite-only/);
    const shown = captureContext(test.env);
    await accessShow({ json: true }, shown.context);
    expect(JSON.parse(shown.stdout())).toEqual({ mode: 'invite_only' });
    await accessInvite('friend@example.com', {}, captureContext(test.env).context);
    const invites = captureContext(test.env);
    await accessInvites({}, invites.context);
    expect(invites.stdout()).toMatch(/^EMAIL\s+INVITED\s+BY\s+USED\n.*friend@example\.com.*unused/s);
    await accessSetMode('open', {}, captureContext(test.env).context);
    expect(await exitCodeOf(accessInvite('not-an-email', {}, captureContext(test.env).context))).toBe(5);
  });

  it('suppresses, lists and unsuppresses an address', async () => {
    const added = captureContext(test.env);
    await mailSuppress('bounce@example.com', { reason: 'bounce' }, added.context);
    expect(added.stdout()).toMatch(/^Suppressed bounce@example\.com \(bounce\)/);
    const listed = captureContext(test.env);
    await mailSuppressions({ json: true }, listed.context);
    expect(JSON.parse(listed.stdout()).suppressions).toEqual([
      expect.objectContaining({ email: 'bounce@example.com' }),
    ]);
    const removed = captureContext(test.env);
    await mailUnsuppress('bounce@example.com', {}, removed.context);
    expect(removed.stdout()).toMatch(/no longer suppressed/);
  });

  it('creates (token printed once), lists and revokes operator keys', async () => {
    const created = captureContext(test.env);
    await operatorKeyCreate({ label: 'bob', json: true }, created.context);
    const { key, token } = JSON.parse(created.stdout()) as { key: { prefix: string }; token: string };
    expect(token).toMatch(/^agw_ak_/);
    const listed = captureContext(test.env);
    await operatorKeyList({}, listed.context);
    expect(listed.stdout()).toMatch(new RegExp(`${key.prefix}\\s+bob\\s+active`));
    expect(listed.stdout()).not.toContain(token.split('.')[1]);
    const revoked = captureContext(test.env);
    await operatorKeyRevoke(key.prefix, {}, revoked.context);
    expect(revoked.stdout()).toContain(`Operator key ${key.prefix} is revoked`);
    // The file's key is now the last active one: revoking it is a conflict.
    expect(
      await exitCodeOf(
        operatorKeyRevoke(test.operatorKey.slice(7, 19), {}, captureContext(test.env).context),
      ),
    ).toBe(4);
  });

  it('operator key create --database needs DATABASE_URL (exit 2) and otherwise writes a working key', async () => {
    if (!test.env.DATABASE_URL) {
      const error = (await operatorKeyCreate({ database: true }, captureContext(test.env).context).catch(
        (caught: unknown) => caught,
      )) as ExitError;
      expect(error.exitCode).toBe(2);
      expect(error.message).toMatch(/needs DATABASE_URL/);
      return;
    }
    const created = captureContext(test.env);
    await operatorKeyCreate({ database: true, label: 'direct', json: true }, created.context);
    const { token } = JSON.parse(created.stdout()) as { token: string };
    const listed = captureContext({ ...test.env, AGW_OPERATOR_KEY: token });
    await operatorKeyList({ json: true }, listed.context);
    expect(JSON.parse(listed.stdout()).operator_keys).toEqual(
      expect.arrayContaining([expect.objectContaining({ label: 'direct', status: 'active' })]),
    );
    const audit = await test.gateway.knex('audit_events').where({ actor: 'cli:database' }).first();
    expect(audit).toMatchObject({ action: 'operator_key.create' });
  });
});
