// A public booking page as an attacker uses it (issue 26): many addresses booking one link to mail
// strangers, a booker name that tries to become a second attendee of the .ics, control characters and
// dates at the edges of the calendar that answered 500, names stored before they were checked, and an
// unknown slug that answered faster than a known one. Mail goes to a real SMTP sink.
import './helpers/request-statements.js';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { createValidator, findCapabilityContract } from '@agw/contracts';
import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminFetch } from './helpers/admin-fixtures.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';
import {
  attachmentsOf,
  type ReceivedMail,
  type SmtpSink,
  startSmtpSink,
  waitUntil,
} from './helpers/mail-sink.js';
import { currentStatements, type RequestStatements, sendCounted } from './helpers/request-statements.js';

// The sink listens before the gateway starts: the gateway reads SMTP_URL once.
const sink: SmtpSink = await startSmtpSink();
afterAll(() => sink.close());
const gateway = useGateway({ env: { SMTP_URL: sink.url } });

let key: string;
let calendarId: string;
let eventTypeId: string;
const ORGANIZER = 'organizer@example.com';
// A calendar name with a double quote: RFC 5545 cannot carry it inside the quoted CN of ORGANIZER.
const CALENDAR_NAME = 'Dana "DB" Berg';
// Finding 3: the name that made ical.js read the attendee as evil@attacker.example.
const EVIL_NAME = 'Evil":MAILTO:evil@attacker.example;X="';
const SPAM_NOTE = 'Cheap pills at https://spam.example/now';

const validator = createValidator();

async function result(id: string, params: Record<string, unknown>) {
  let answer = await gateway.client.post(
    '/mcp/invoke',
    { id, params, idempotency_key: `cal-${randomUUID()}` },
    { key, idem: null },
  );
  if (answer.json?.status === 'pending_approval') {
    const { approval_id, approval_token } = answer.json.approval;
    await adminFetch(`${gateway.url}/admin/approvals/${approval_id}/approve`, gateway.operatorKey, {
      body: {},
    });
    answer = await gateway.client.post(
      '/mcp/invoke',
      { id, params, approval_token, idempotency_key: `cal-${randomUUID()}` },
      { key, idem: null },
    );
  }
  if (answer.status !== 200 || answer.json.result === undefined)
    throw new Error(`${id}: ${answer.status} ${answer.text}`);
  const contract = findCapabilityContract(id);
  if (contract === undefined) throw new Error(`no contract ${id}`);
  expect(validator.validate(contract.output_schema, answer.json.result)).toMatchObject({ valid: true });
  return answer.json.result;
}

async function newLink(params: Record<string, unknown>): Promise<{ linkId: string; path: string }> {
  const created = await result('calendar.booking_link.manage', {
    operation: 'create',
    calendar_id: calendarId,
    title: 'Intro call',
    allowed_event_type_ids: [eventTypeId],
    min_notice_minutes: 0,
    one_time_use: false,
    access_mode: 'public',
    ...params,
  });
  if (created.link.access_mode === 'public') return { linkId: created.link.id, path: created.url_path };
  const issued = await result('calendar.booking_link.issue_secret', { link_id: created.link.id });
  return { linkId: created.link.id, path: issued.url_path };
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly text: string;
  // biome-ignore lint/suspicious/noExplicitAny: a JSON answer read by the assertions.
  readonly json: any;
}

/**
 * One request from `address` (all of 127/8 is loopback: each address is its own client to the
 * per-address limit). `json` sends a JSON body, `form` the page's form.
 */
function send(
  method: string,
  path: string,
  options: { address?: string; json?: unknown; form?: Record<string, string> } = {},
): Promise<Answer> {
  const body =
    options.json !== undefined
      ? JSON.stringify(options.json)
      : options.form
        ? new URLSearchParams(options.form).toString()
        : undefined;
  const type = options.json !== undefined ? 'application/json' : 'application/x-www-form-urlencoded';
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${gateway.url}${path}`,
      {
        method,
        localAddress: options.address ?? '127.0.0.1',
        headers: body === undefined ? {} : { 'content-type': type },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers as Record<string, string>,
            text,
            json,
          });
        });
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

async function freeStarts(path: string): Promise<string[]> {
  const answer = await send('GET', `${path}/slots?tz=Europe/Berlin`);
  expect(answer.status).toBe(200);
  return answer.json.slots.map((slot: { start: string }) => slot.start);
}

/** A mail's subject with its RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`) decoded. */
function subjectOf(mail: ReceivedMail): string {
  const bytes = (encoding: string, text: string) =>
    encoding.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64')
      : Buffer.from(
          text
            .replace(/_/g, ' ')
            .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
          'latin1',
        );
  return mail.subject
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_, encoding: string, text: string) =>
      bytes(encoding, text).toString('utf8'),
    );
}

/** The VEVENT of a mail's invite.ics as ical.js reads it: organizer, attendees with their CN. */
function invite(mail: ReceivedMail) {
  const [ics] = attachmentsOf(mail);
  const text = ics?.content.toString('utf8') ?? '';
  const calendar = new ICAL.Component(ICAL.parse(text));
  const events = calendar.getAllSubcomponents('vevent');
  expect(events).toHaveLength(1);
  const event = events[0] as ICAL.Component;
  const address = (value: unknown) =>
    String(value)
      .replace(/^mailto:/i, '')
      .toLowerCase();
  const organizer = event.getFirstProperty('organizer');
  return {
    text,
    organizer: address(organizer?.getFirstValue()),
    organizerName: organizer?.getParameter('cn'),
    attendees: event.getAllProperties('attendee').map((attendee) => ({
      address: address(attendee.getFirstValue()),
      name: attendee.getParameter('cn'),
    })),
    description: event.getFirstPropertyValue('description'),
  };
}

beforeAll(async () => {
  ({ key } = await approvedInstallation(gateway, '5'));
  const calendar = await result('calendar.calendar.manage', {
    operation: 'create',
    name: CALENDAR_NAME,
    timezone: 'Europe/Berlin',
    notification_email: ORGANIZER,
  });
  calendarId = calendar.calendar.id;
  await result('calendar.availability.manage', {
    operation: 'replace',
    calendar_id: calendarId,
    rules: [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day_of_week: day, start_time: '09:00', end_time: '17:00' })),
  });
  const type = await result('calendar.event_type.manage', {
    operation: 'create',
    calendar_id: calendarId,
    name: 'Video call',
    duration_minutes: 30,
  });
  eventTypeId = type.event_type.id;
});

describe('a public link is not a mail relay', () => {
  it('60 bookings of one public link from 60 addresses: the link’s hourly cap answers 429 with retry_after_seconds, and no booker-written text reaches a booker’s mailbox', async () => {
    const { path } = await newLink({ title: 'Open office hours' });
    const starts = await freeStarts(path);
    expect(starts.length).toBeGreaterThanOrEqual(60);
    const answers = await Promise.all(
      starts.slice(0, 60).map((start, index) =>
        send('POST', `${path}/bookings`, {
          address: `127.0.0.${10 + index}`,
          json: {
            start,
            name: index % 2 === 0 ? EVIL_NAME : `Visit spam.example ${index}`,
            email: `victim${index}@example.org`,
            note: SPAM_NOTE,
            timezone: 'Europe/Berlin',
          },
        }),
      ),
    );
    const booked = answers.filter((answer) => answer.status === 201);
    const refused = answers.filter((answer) => answer.status !== 201);
    // The default cap of a link: 20 bookings an hour, whichever addresses they come from.
    expect(booked).toHaveLength(20);
    expect(refused).toHaveLength(40);
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      const error = expectEnvelope(answer.json, 'rate_limited');
      expect(error.retryable).toBe(true);
      expect(error.retry_after_seconds).toBeGreaterThan(0);
      expect(error.retry_after_seconds).toBeLessThanOrEqual(3600);
      expect(answer.headers['retry-after']).toBe(String(error.retry_after_seconds));
    }
    // The page says so too, in words, with the same status.
    const page = await send('POST', `${path}/bookings`, {
      address: '127.0.0.200',
      form: { start: starts[59] as string, name: 'Kim', email: 'kim@example.org', timezone: 'Europe/Berlin' },
    });
    expect(page.status).toBe(429);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.text).toContain('as many bookings as it takes in an hour');
    expect(Number(page.headers['retry-after'])).toBeGreaterThan(0);

    // Mail went out for the 20 bookings only: 20 to bookers, 20 copies to the organizer.
    const outbox = await gateway.knex('mail_outbox').where('to_address', 'like', 'victim%');
    expect(outbox).toHaveLength(20);
    const toVictims = await waitUntil(() => {
      const found = sink.messages.filter(
        (mail) => mail.to.includes('@example.org') && /victim/.test(mail.to),
      );
      return found.length === 20 ? found : undefined;
    });
    const organizerCopies = await waitUntil(() => {
      const found = sink.messages.filter(
        (mail) => mail.to.includes(ORGANIZER) && subjectOf(mail).includes('Open office hours'),
      );
      return found.length === 20 ? found : undefined;
    });
    for (const mail of toVictims) {
      const readable = [subjectOf(mail), mail.body, invite(mail).text].join('\n');
      for (const written of ['spam.example', 'attacker.example', 'Evil', 'pills']) {
        expect(readable).not.toContain(written);
      }
      expect(invite(mail).description).toBeNull();
    }
    // The organizer still reads who booked and the note.
    expect(organizerCopies.some((mail) => invite(mail).description === SPAM_NOTE)).toBe(true);
  });
});

describe('the .ics of every mail', () => {
  it('names the booker as the one attendee and the calendar as the organizer, whatever quotes the names hold', async () => {
    const { path } = await newLink({ title: 'Quoted' });
    const [start] = await freeStarts(path);
    const booked = await send('POST', `${path}/bookings`, {
      address: '127.0.1.1',
      json: { start, name: EVIL_NAME, email: 'booker@example.net', timezone: 'Europe/Berlin' },
    });
    expect(booked.status).toBe(201);
    await waitUntil(() =>
      sink.messages.filter((mail) => subjectOf(mail).includes('Quoted')).length === 2 ? true : undefined,
    );
    const mails = sink.messages.filter((mail) => attachmentsOf(mail).length > 0);
    expect(mails.length).toBeGreaterThanOrEqual(2);
    for (const mail of mails) {
      const event = invite(mail);
      expect(event.organizer).toBe(ORGANIZER);
      expect(event.organizerName).toBe("Dana 'DB' Berg");
      expect(event.attendees).toHaveLength(1);
      const [attendee] = event.attendees;
      expect(attendee?.address).not.toContain('attacker');
      // The booker's own copy names no one the booker typed; the organizer's names the booker.
      if (mail.to.includes(ORGANIZER)) expect(attendee?.name).toBeDefined();
      else expect(attendee?.name).toBeUndefined();
    }
    const toOrganizer = mails.filter(
      (mail) => mail.subject.includes('Quoted') && mail.to.includes(ORGANIZER),
    );
    expect(invite(toOrganizer[0] as ReceivedMail).attendees).toEqual([
      { address: 'booker@example.net', name: "Evil':MAILTO:evil@attacker.example;X='" },
    ]);
  });
});

describe('bad input answers 400, never 500', () => {
  let path: string;
  let start: string;
  beforeAll(async () => {
    ({ path } = await newLink({ title: 'Edges' }));
    [start = ''] = await freeStarts(path);
  });
  const book = (fields: Record<string, unknown>, address = '127.0.2.1') =>
    send('POST', `${path}/bookings`, {
      address,
      json: { start, name: 'Kim', email: 'kim@example.org', ...fields },
    });

  it('a booker name with CR/LF, U+0000 or a bidi control, a note with a control character, an address with a second one', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'Kim\r\nBcc: all@example.org' }, '/body/name'],
      [{ name: 'Kim\u0000' }, '/body/name'],
      [{ name: 'Kim \u202Egnp.exe' }, '/body/name'],
      [{ note: 'hello\u0000' }, '/body/note'],
      [{ email: 'kim@example.org;x@example.org' }, '/body/email'],
      [{ start: '9999-12-31T00:00:00Z' }, '/body/start'],
      [{ start: '0001-01-01T00:00:00Z' }, '/body/start'],
    ];
    for (const [fields, pointer] of cases) {
      const answer = await book(fields);
      expect({ fields, status: answer.status }).toEqual({ fields, status: 400 });
      const error = expectEnvelope(answer.json, 'validation_failed');
      expect(error.schema_pointer).toBe(pointer);
    }
  });

  it('slots at the edges of the calendar and over a too long range; the page’s from too', async () => {
    const cases: Array<[string, string]> = [
      ['to=9999-12-31T00:00:00Z', '/query/to'],
      ['from=0001-01-01T00:00:00Z', '/query/from'],
      ['from=+275760-09-13T00:00:00Z', '/query/from'],
      ['from=not-a-time', '/query/from'],
      [
        `from=${encodeURIComponent(new Date().toISOString())}&to=${encodeURIComponent(new Date(Date.now() + 100 * 86_400_000).toISOString())}`,
        '/query/to',
      ],
      // Without from the range starts now: a far to alone is as long a range.
      [`to=${encodeURIComponent(new Date(Date.now() + 300 * 86_400_000).toISOString())}`, '/query/to'],
    ];
    for (const [query, pointer] of cases) {
      const answer = await send('GET', `${path}/slots?${query}`);
      expect({ query, status: answer.status }).toEqual({ query, status: 400 });
      expect(expectEnvelope(answer.json, 'validation_failed').schema_pointer).toBe(pointer);
    }
    for (const from of ['0001-01-01T00:00:00Z', '9999-12-31T00:00:00Z']) {
      const page = await send('GET', `${path}?from=${from}`);
      expect(page.status).toBe(400);
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.text).toContain('That time is out of range.');
    }
    // A month view's range is fine.
    const month = await send(
      'GET',
      `${path}/slots?from=${encodeURIComponent(new Date().toISOString())}&to=${encodeURIComponent(new Date(Date.now() + 31 * 86_400_000).toISOString())}`,
    );
    expect(month.status).toBe(200);
  });

  it('a link, event type and calendar whose names were stored with CR/LF still book, with one-line subjects', async () => {
    const calendar = await result('calendar.calendar.manage', {
      operation: 'create',
      name: 'Old',
      timezone: 'Europe/Berlin',
      notification_email: 'old-organizer@example.com',
    });
    await result('calendar.availability.manage', {
      operation: 'replace',
      calendar_id: calendar.calendar.id,
      rules: [0, 1, 2, 3, 4, 5, 6].map((day) => ({
        day_of_week: day,
        start_time: '09:00',
        end_time: '17:00',
      })),
    });
    const type = await result('calendar.event_type.manage', {
      operation: 'create',
      calendar_id: calendar.calendar.id,
      name: 'Call',
      duration_minutes: 30,
    });
    const created = await result('calendar.booking_link.manage', {
      operation: 'create',
      calendar_id: calendar.calendar.id,
      title: 'Old link',
      allowed_event_type_ids: [type.event_type.id],
      min_notice_minutes: 0,
      access_mode: 'public',
      one_time_use: false,
    });
    // Rows written before the contracts refused control characters in names.
    await gateway
      .knex('calendar_calendars')
      .where({ id: calendar.calendar.id })
      .update({ name: 'Old\r\nCal "x"' });
    await gateway
      .knex('calendar_event_types')
      .where({ id: type.event_type.id })
      .update({ name: 'Call\nBcc: x' });
    await gateway
      .knex('calendar_booking_links')
      .where({ id: created.link.id })
      .update({ title: 'Old\r\nlink' });
    const [slot] = await freeStarts(created.url_path);
    const answer = await send('POST', `${created.url_path}/bookings`, {
      address: '127.0.2.2',
      json: { start: slot, name: 'Kim', email: 'kim-old@example.org' },
    });
    expect(answer.status).toBe(201);
    const mails = await waitUntil(() => {
      const found = sink.messages.filter((mail) => /kim-old|old-organizer/.test(mail.to));
      return found.length === 2 ? found : undefined;
    });
    for (const mail of mails) {
      const counterpart = mail.to.includes('old-organizer') ? 'Kim' : 'Old Cal "x"';
      expect(subjectOf(mail)).toBe(`Confirmed: Call Bcc: x: Old link with ${counterpart}`);
      expect(mail.headers.bcc).toBeUndefined();
      expect(invite(mail).organizer).toBe('old-organizer@example.com');
    }
  });
});

describe('an unknown slug', () => {
  it('answers exactly like a known slug with a wrong secret, after the same statements', async () => {
    gateway.knex.on('query', (data: { sql?: string }) => currentStatements()?.knex.push(data.sql ?? ''));
    const { path } = await newLink({ access_mode: 'secret', title: 'Secret' });
    const slug = path.split('/')[2] as string;
    const wrong = `/book/${slug}/${'A'.repeat(43)}`;
    const unknown = `/book/no-such-link-${randomUUID().slice(0, 8)}/${'A'.repeat(43)}`;
    const probe = async (target: string, init: RequestInit & { headers: Record<string, string> }) => {
      const { response, body, statements } = await sendCounted(`${gateway.url}${target}`, init);
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        if (!['date', 'x-request-id'].includes(name)) headers[name] = value;
      });
      const error = (body as { error: Record<string, unknown> }).error;
      return {
        status: response.status,
        headers,
        // The request's own id (audit_id) differs between any two requests.
        body: { error: { ...error, audit_id: '(request id)', request_id: undefined } },
        statements: normalized(statements),
      };
    };
    const get = { method: 'GET', headers: {} };
    const post = {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ start: new Date().toISOString(), name: 'Kim', email: 'kim@example.org' }),
    };
    for (const [suffix, init] of [
      ['/slots', get],
      ['/bookings', post],
    ] as const) {
      const known = await probe(`${wrong}${suffix}`, init);
      expect(known.status).toBe(404);
      expect(await probe(`${unknown}${suffix}`, init)).toEqual(known);
    }
  });
});

/** What a request sent, without the values that differ between two requests (ids, slugs). */
function normalized(statements: RequestStatements) {
  return {
    knex: statements.knex.map((text) => text.replace(/'[^']*'/g, "'…'")),
    roundTrips: statements.roundTrips.map((text) => text.replace(/'[^']*'/g, "'…'")),
  };
}
