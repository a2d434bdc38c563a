// A paid read runs its handler outside any transaction of the invoke's, then writes its charge and audit
// rows in one short transaction (issue 26, finding 1). While its handler works without SQL — a document
// rendering in the worker pool — it holds no database connection: on the embedded PGlite, one session,
// /health and every other request used to wait for it. A refused or failed paid read is audited and not
// charged; a retry under the same X-Request-Id is charged once.
import { CapabilityError } from '@agw/capabilities';
import { readWalletSnapshot } from '@agw/gateway';
import { beforeAll, describe, expect, it } from 'vitest';
import { demoCapability, withCapabilities } from './helpers/demo-capabilities.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';

/** A handler that waits, without SQL, until the test lets it go. */
class Gate {
  entered!: Promise<void>;
  #enter!: () => void;
  #open!: () => void;
  #opened!: Promise<void>;

  constructor() {
    this.reset();
  }

  reset(): void {
    this.entered = new Promise((resolve) => {
      this.#enter = resolve;
    });
    this.#opened = new Promise((resolve) => {
      this.#open = resolve;
    });
  }

  async pass(): Promise<void> {
    this.#enter();
    await this.#opened;
  }

  open(): void {
    this.#open();
  }
}

const gate = new Gate();
const slow = demoCapability({ id: 'demo.paid.slow', cost_credits: '0.5' }, async (_input, ctx) => {
  await ctx.sql.query('select 1');
  await gate.pass();
  const { rows } = await ctx.sql.query<{ org: string }>(
    "select current_setting('agw.organization_id') as org",
  );
  return { org: rows[0]?.org };
});
const missing = demoCapability({ id: 'demo.paid.missing', cost_credits: '0.5' }, async () => {
  throw new CapabilityError('not_found', 'No such thing.');
});
const gateway = useGateway(withCapabilities(slow, missing));

let slowKey: string;
let slowOrg: string;
let otherKey: string;

beforeAll(async () => {
  ({ key: slowKey, organizationId: slowOrg } = await approvedInstallation(gateway, '10'));
  ({ key: otherKey } = await approvedInstallation(gateway, '10'));
});

interface InvokeAnswer {
  readonly status?: string;
  readonly audit_id: string;
  readonly result?: unknown;
  readonly cost?: unknown;
  readonly error: { readonly code: string; readonly audit_id: string };
}

async function invoke(key: string, id: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.url}/mcp/invoke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ id, params: {} }),
  });
  return { status: response.status, body: (await response.json()) as InvokeAnswer };
}

const balance = async (organizationId: string) =>
  (await readWalletSnapshot(gateway.knex, organizationId, new Date())).balance_credits;

async function auditOf(auditId: string) {
  return gateway.knex('audit_events').where({ audit_id: auditId }).first();
}

describe('a paid read', () => {
  it('holds no database connection while its handler works: /health and another organization answer meanwhile', async () => {
    gate.reset();
    const running = invoke(slowKey, 'demo.paid.slow');
    await gate.entered;
    try {
      // Before, on PGlite, these waited for the paid read's transaction, which waited for the gate.
      expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
      const other = await invoke(otherKey, 'core.org.current.get');
      expect([other.status, other.body.status]).toEqual([200, 'succeeded']);
    } finally {
      gate.open();
    }
    const done = await running;
    expect(done.status).toBe(200);
    // Each statement ran as the caller's organization, the one after the wait too.
    expect(done.body).toMatchObject({
      status: 'succeeded',
      result: { org: slowOrg },
      cost: { credits: '0.5' },
    });
    expect(await auditOf(done.body.audit_id)).toMatchObject({ outcome: 'succeeded' });
  });

  it("a handler's refusal is audited and not charged", async () => {
    const before = await balance(slowOrg);
    const refused = await invoke(slowKey, 'demo.paid.missing');
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatchObject({ code: 'not_found' });
    expect(await auditOf(refused.body.error.audit_id)).toMatchObject({ outcome: 'failed' });
    expect(await balance(slowOrg)).toBe(before);
  });

  it('a retry under the same X-Request-Id is charged once and answers no cost the second time', async () => {
    const headers = { 'x-request-id': `paid-read-retry-${Date.now()}` };
    const before = Number(await balance(slowOrg));
    gate.reset();
    gate.open();
    const first = await invoke(slowKey, 'demo.paid.slow', headers);
    gate.reset();
    gate.open();
    const second = await invoke(slowKey, 'demo.paid.slow', headers);
    expect(first.body).toMatchObject({ status: 'succeeded', cost: { credits: '0.5' } });
    expect(second.body.status).toBe('succeeded');
    expect(second.body.cost).toBeUndefined();
    expect(Number(await balance(slowOrg))).toBeCloseTo(before - 0.5);
    const audited = await auditOf(second.body.audit_id);
    expect(audited.details.charged_credits).toBeNull();
  });
});
