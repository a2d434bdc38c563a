// An audit record is found by the audit id its answer named (the console's /console/audit/<id>, built on
// listAuditEvents). New rows take the audit id as their primary key (one unique index a row, not two);
// rows written before that change, and audit ids that are no lower-case UUID, are found through the
// partial `audit_id` index.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { listAuditEvents } from '../src/admin/audit-log.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';

const gateway = useGateway();
let key: string;

beforeAll(async () => {
  ({ key } = await approvedInstallation(gateway));
});

const found = async (auditId: string) =>
  (await listAuditEvents(gateway.knex, { audit_id: auditId, limit: 10 })).events.map((event) => ({
    audit_id: event.audit_id,
    request_id: event.request_id,
  }));

/** A row as one written before the change: a random primary key beside its audit id. */
async function insertRow(auditId: string, requestId: string): Promise<void> {
  await gateway.knex('audit_events').insert({
    id: randomUUID(),
    audit_id: auditId,
    request_id: requestId,
    actor: 'anonymous',
    action: 'test.lookup',
    outcome: 'succeeded',
    http_status: 200,
    details: '{}',
  });
}

describe('finding an audit record by its audit id', () => {
  it("finds an invoke's record and a refusal's, each stored under its audit id as its primary key", async () => {
    const read = await gateway.client.post(
      '/mcp/invoke',
      { id: 'core.org.current.get', params: {} },
      { key },
    );
    const refused = await gateway.client.post(
      '/mcp/invoke',
      { id: 'billing.no_such.thing', params: {} },
      { key },
    );
    const auditIds = [read.json.audit_id as string, refused.json.error.audit_id as string];
    for (const auditId of auditIds) {
      const row = await gateway.knex('audit_events').where({ audit_id: auditId }).first();
      expect(row?.id, auditId).toBe(auditId);
      const events = await found(auditId);
      expect(events.map((event) => event.audit_id)).toEqual([auditId]);
    }
  });

  it('finds rows whose primary key is not their audit id, and only the row with that exact id', async () => {
    const older = randomUUID();
    await insertRow(older, 'written-before');
    expect(await found(older)).toEqual([{ audit_id: older, request_id: 'written-before' }]);

    const named = `op_${randomUUID()}`;
    await insertRow(named, 'not-a-uuid');
    expect(await found(named)).toEqual([{ audit_id: named, request_id: 'not-a-uuid' }]);

    // An upper-case spelling is another audit id: the lower-case row is not its answer.
    const lower = randomUUID();
    await insertRow(lower.toUpperCase(), 'upper-case');
    const read = await gateway.client.post(
      '/mcp/invoke',
      { id: 'core.org.current.get', params: {} },
      { key },
    );
    const newer = read.json.audit_id as string;
    expect(await found(newer.toUpperCase())).toEqual([]);
    expect(await found(lower.toUpperCase())).toEqual([
      { audit_id: lower.toUpperCase(), request_id: 'upper-case' },
    ]);
    expect(await found(lower)).toEqual([]);
  });
});
