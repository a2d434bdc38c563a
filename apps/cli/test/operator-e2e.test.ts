// The spawned `agw` binary against a running gateway, as an operator uses it: the key comes from
// DATA_DIR/operator.key (no AGW_OPERATOR_KEY), the address from AGW_URL; `installations list --json`
// parses, `installations approve` works once the codes are redeemed, and each failure class has its
// documented exit code (2 usage, 3 auth, 4 conflict). Last, a real onboarding over HTTP whose codes
// are read with `agw mail list|show` from the gateway's own dev mailbox, approved with `agw`.
import { extractOtpFromBody } from '@agw/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessClient, onboard } from '../../gateway/test/helpers/access-client.js';
import { insertInstallation } from '../../gateway/test/helpers/admin-fixtures.js';
import { runCli } from './helpers/run-cli.js';
import { startTestGateway, type TestGateway } from './helpers/test-gateway.js';

let test: TestGateway;

beforeAll(async () => {
  test = await startTestGateway();
});

afterAll(async () => {
  await test?.close();
});

describe('agw operator commands (spawned)', () => {
  it('lists pending installations as JSON and approves one, using the operator.key file', async () => {
    const { installationId } = await insertInstallation(test.gateway.knex, {
      ownerVerified: true,
      agentVerified: true,
    });
    const listed = await runCli(['installations', 'list', '--status', 'pending', '--json'], test.env);
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    const { installations } = JSON.parse(listed.stdout) as {
      installations: Array<{ id: string; ready_for_approval: boolean }>;
    };
    expect(installations).toEqual([
      expect.objectContaining({ id: installationId, ready_for_approval: true }),
    ]);

    const approved = await runCli(['installations', 'approve', installationId], test.env);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(/approved \(was pending\)/);
    const row = await test.gateway.knex('installations').where({ id: installationId }).first();
    expect(row.operator_approval_status).toBe('approved');

    const table = await runCli(['installations', 'list', '--url', test.env.AGW_URL as string], {
      DATA_DIR: test.dataDir,
    });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`${installationId}\\s+approved`));
  });

  it('exits 4 when approval is refused, 3 with a bad key, 2 for a bad --status', async () => {
    const { installationId } = await insertInstallation(test.gateway.knex, { ownerVerified: false });
    const refused = await runCli(['installations', 'approve', installationId], test.env);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(
      /^agw: Installation .* cannot be approved yet: the owner has not redeemed the owner code\. \(conflict, HTTP 409\)\n {2}- owner_verified: false, agent_email_verification_status: not_required\n {2}hint: /,
    );

    const badKey = `${test.operatorKey.slice(0, -6)}AAAAAA`;
    const denied = await runCli(['installations', 'list'], { ...test.env, AGW_OPERATOR_KEY: badKey });
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain('invalid_api_key, HTTP 401');
    expect(denied.stderr).not.toContain(badKey.split('.')[1]);

    const usage = await runCli(['installations', 'list', '--status', 'maybe'], test.env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/Allowed choices are pending, approved, blocked/);
  });

  it('reads real onboarding codes with agw mail and approves the installation with agw', async () => {
    const client = new AccessClient(test.gateway.url);
    const flow = await onboard(client);
    const codeFromMailbox = async (): Promise<string> => {
      for (;;) {
        const listed = await runCli(['mail', 'list', '--json'], test.env);
        expect(listed.code).toBe(0);
        const { messages } = JSON.parse(listed.stdout) as { messages: Array<{ id: string; to: string }> };
        const mail = messages.find((message) => message.to.includes(flow.body.owner_email));
        if (mail) {
          const shown = await runCli(['mail', 'show', mail.id], test.env);
          expect(shown.stdout).toMatch(/^From\s+.+\nTo\s+.+\nSubject\s+.+\nDate\s+.+\nMessage-ID\s+.+\n/);
          const code = extractOtpFromBody(shown.stdout);
          if (code) return code;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const claimed = await client.post(
      '/owner-otp/claim',
      { otp: await codeFromMailbox() },
      { key: flow.installationKey },
    );
    expect(claimed.status).toBe(200);

    const approved = await runCli(['installations', 'approve', flow.installationId], test.env);
    expect(approved.stderr).toBe('');
    expect(approved.code).toBe(0);
    const current = await client.get('/org/current', flow.installationKey);
    expect(current.json.installation.operator_approved_at).toEqual(expect.any(String));
  });
});
