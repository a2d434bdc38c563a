// No double booking across processes: two `agw serve` on one PostgreSQL (and one Redis). 20 concurrent
// bookings of one slot, split across both processes, make exactly one booking; the others answer
// 409 slot_taken. 20 concurrent bookings of a one-time link, each on a different slot, make exactly
// one booking; the link is then booked and the others answer 404. 20 concurrent bookings of a link that
// takes 5 an hour, on different slots, make exactly 5: the cap is counted in the database under a lock,
// not in either process. PostgreSQL only.
import { randomBytes, randomUUID } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessClient, onboard } from '../../apps/gateway/test/helpers/access-client.js';
import { adminFetch, readOperatorKeyFile } from '../../apps/gateway/test/helpers/admin-fixtures.js';
import { createTestEnvironment, type TestEnvironment } from '../../apps/gateway/test/helpers/environment.js';
import { type Served, serve, stop } from './helpers/serve.js';

const CONCURRENT = 20;
const onPostgres = Boolean(process.env.DATABASE_URL);

describe.skipIf(!onPostgres)('calendar bookings from two gateway processes on one PostgreSQL', () => {
  let environment: TestEnvironment;
  let knex: Knex;
  let a: Served;
  let b: Served;
  let client: AccessClient;
  let key: string;
  let calendarId: string;

  const result = async (id: string, params: Record<string, unknown>) => {
    let answer = await client.post(
      '/mcp/invoke',
      { id, params, idempotency_key: randomUUID() },
      { key, idem: null },
    );
    if (answer.json?.status === 'pending_approval') {
      const operatorKey = await readOperatorKeyFile(environment.dataDir);
      await adminFetch(`${a.url}/admin/approvals/${answer.json.approval.approval_id}/approve`, operatorKey, {
        body: {},
      });
      answer = await client.post(
        '/mcp/invoke',
        { id, params, approval_token: answer.json.approval.approval_token, idempotency_key: randomUUID() },
        { key, idem: null },
      );
    }
    if (answer.status !== 200 || !answer.json.result)
      throw new Error(`${id}: ${answer.status} ${answer.text}`);
    return answer.json.result;
  };

  const postAll = (requests: Array<{ path: string; body: unknown }>) =>
    Promise.all(
      requests.map(async ({ path, body }, index) => {
        const base = index % 2 === 0 ? a.url : b.url;
        const response = await fetch(`${base}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: response.status, body: await response.json() };
      }),
    );

  beforeAll(async () => {
    environment = await createTestEnvironment();
    const env = {
      ...environment.env,
      SECRET_KEY: randomBytes(32).toString('hex'),
      CALENDAR_BOOKINGS_PER_MINUTE: '1000',
    };
    a = await serve(env);
    b = await serve(env);
    client = new AccessClient(a.url);
    knex = knexFactory({ client: 'pg', connection: environment.env.DATABASE_URL, pool: { min: 0, max: 2 } });
    const flow = await onboard(client);
    await knex('installations')
      .where({ id: flow.installationId })
      .update({ owner_verified_at: knex.fn.now(), operator_approval_status: 'approved' });
    key = flow.installationKey;
    calendarId = (
      await result('calendar.calendar.manage', { operation: 'create', name: 'Race', timezone: 'UTC' })
    ).calendar.id;
    await result('calendar.availability.manage', {
      operation: 'replace',
      calendar_id: calendarId,
      rules: [0, 1, 2, 3, 4, 5, 6].map((day) => ({
        day_of_week: day,
        start_time: '00:00',
        end_time: '23:30',
      })),
    });
  }, 90_000);
  afterAll(async () => {
    await Promise.all([a && stop(a), b && stop(b)]);
    await knex?.destroy();
    await environment?.cleanup();
  });

  it(`${CONCURRENT} bookings of one slot: one booking, ${CONCURRENT - 1} slot_taken`, async () => {
    const link = await result('calendar.booking_link.manage', {
      operation: 'create',
      calendar_id: calendarId,
      title: 'Race',
      access_mode: 'public',
      one_time_use: false,
      min_notice_minutes: 0,
    });
    const slots = await (await fetch(`${b.url}${link.url_path}/slots`)).json();
    const start = slots.slots[0].start as string;
    const answers = await postAll(
      Array.from({ length: CONCURRENT }, (_, i) => ({
        path: `${link.url_path}/bookings`,
        body: { start, name: `Racer ${i}`, email: `racer${i}@example.com` },
      })),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(refused.map((answer) => [answer.status, answer.body.error.code])).toEqual(
      Array.from({ length: CONCURRENT - 1 }, () => [409, 'slot_taken']),
    );
    const rows = await knex('calendar_bookings').where({
      calendar_id: calendarId,
      start_at: new Date(start),
    });
    expect(rows).toHaveLength(1);
  }, 60_000);

  it(`${CONCURRENT} bookings of a one-time link on different slots: one booking, the link booked`, async () => {
    const created = await result('calendar.booking_link.manage', {
      operation: 'create',
      calendar_id: calendarId,
      title: 'Once',
      one_time_use: true,
      min_notice_minutes: 0,
    });
    const issued = await result('calendar.booking_link.issue_secret', { link_id: created.link.id });
    const slots = await (await fetch(`${a.url}${issued.url_path}/slots`)).json();
    expect(slots.slots.length).toBeGreaterThanOrEqual(CONCURRENT);
    const answers = await postAll(
      slots.slots.slice(0, CONCURRENT).map((slot: { start: string }, i: number) => ({
        path: `${issued.url_path}/bookings`,
        body: { start: slot.start, name: `Once ${i}`, email: `once${i}@example.com` },
      })),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 404)).toHaveLength(CONCURRENT - 1);
    expect(await knex('calendar_bookings').where({ link_id: created.link.id })).toHaveLength(1);
    expect((await knex('calendar_booking_links').where({ id: created.link.id }).first()).status).toBe(
      'booked',
    );
  }, 60_000);

  it(`${CONCURRENT} bookings of a link that takes 5 an hour: 5 bookings, the rest 429 from either process`, async () => {
    const link = await result('calendar.booking_link.manage', {
      operation: 'create',
      calendar_id: calendarId,
      title: 'Capped',
      access_mode: 'public',
      one_time_use: false,
      min_notice_minutes: 0,
      bookings_per_hour: 5,
    });
    const slots = await (await fetch(`${a.url}${link.url_path}/slots`)).json();
    const answers = await postAll(
      slots.slots.slice(0, CONCURRENT).map((slot: { start: string }, i: number) => ({
        path: `${link.url_path}/bookings`,
        body: { start: slot.start, name: `Capped ${i}`, email: `capped${i}@example.com` },
      })),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(5);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(refused.map((answer) => [answer.status, answer.body.error.code])).toEqual(
      Array.from({ length: CONCURRENT - 5 }, () => [429, 'rate_limited']),
    );
    expect(await knex('calendar_bookings').where({ link_id: link.link.id })).toHaveLength(5);
  }, 60_000);
});
