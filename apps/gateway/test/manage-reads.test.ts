// Issue 28, finding 4: the list and get operations of the mutating `*.manage` capabilities are reads.
// They run without an idempotency_key (nothing is written to the idempotency store); a key that is
// sent is still honoured (the replay is marked); describe says which operations read and which mutate.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from './helpers/access-client.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope, expectSchema } from './helpers/http.js';

const gateway = useGateway();
let key: string;
let organizationId: string;

beforeAll(async () => {
  ({ key, organizationId } = await approvedInstallation(gateway));
});

async function invoke(body: unknown): Promise<Answer> {
  const answer = await gateway.client.post('/mcp/invoke', body, { idem: null, key });
  expectSchema(answer.status === 200 ? 'InvokeResponse' : 'ErrorEnvelope', answer.json);
  return answer;
}

async function storedKeys(): Promise<number> {
  const rows = await gateway.knex('idempotency_keys').where({ scope_tenant: organizationId }).count();
  return Number(rows[0]?.count);
}

describe('read operations of *.manage capabilities', () => {
  it('list and get run without an idempotency_key and store no idempotency record', async () => {
    const reads = [
      { id: 'calendar.booking.manage', params: { operation: 'list' } },
      { id: 'calendar.calendar.manage', params: { operation: 'list' } },
      { id: 'calendar.availability.manage', params: { operation: 'get' } },
      { id: 'calendar.event_type.manage', params: { operation: 'list' } },
      { id: 'calendar.booking_link_template.manage', params: { operation: 'list' } },
      { id: 'calendar.booking_link.manage', params: { operation: 'list' } },
      { id: 'analytics.property.manage', params: { operation: 'list' } },
    ];
    for (const body of reads) {
      const answer = await invoke(body);
      expect(answer.status, body.id).toBe(200);
      expect(answer.json, body.id).toMatchObject({ status: 'succeeded', result: body.params });
      expect(answer.json.replayed, body.id).toBeUndefined();
    }
    expect(await storedKeys()).toBe(0);
  });

  it('a mutating operation still needs the key', async () => {
    const answer = await invoke({
      id: 'calendar.calendar.manage',
      params: { operation: 'create', name: 'Second' },
    });
    expect(answer.status).toBe(400);
    expectEnvelope(answer.json, 'idempotency_key_required');
  });

  it('a read sent with a key is honoured: stored once, replayed', async () => {
    const body = {
      id: 'calendar.booking.manage',
      params: { operation: 'list' },
      idempotency_key: 'manage-list-key-0001',
    };
    const first = await invoke(body);
    expect(first.json).toMatchObject({ status: 'succeeded', result: { operation: 'list', count: 0 } });
    expect(first.json.replayed).toBeUndefined();
    const again = await invoke(body);
    expect(again.json).toMatchObject({ replayed: true, audit_id: first.json.audit_id });
    expect(await storedKeys()).toBe(1);
  });

  it('describe names the read and the mutating operations', async () => {
    const answer = await gateway.client.post('/mcp/describe', { id: 'calendar.booking.manage' }, { key });
    expect(answer.status).toBe(200);
    expectSchema('CapabilityDescription', answer.json);
    expect(answer.json).toMatchObject({
      mutating: true,
      idempotency_key_required: true,
      read_operations: ['list'],
      mutating_operations: ['update', 'cancel'],
    });
  });
});
