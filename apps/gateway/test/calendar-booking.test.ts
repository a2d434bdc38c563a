// The calendar over real HTTP on the default catalog: an agent sets up a calendar, availability, an
// event type and links; people book through the public JSON API and the HTML page (in chromium, by
// mouse and by keyboard only); one-time links refuse a second booking, a wrong or revoked secret
// answers like an unknown link, re-issuing voids the old secret, overlaps are refused, cancelling frees
// the slot, and the mails carry an .ics that parses back to the booking.
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createValidator, findCapabilityContract } from '@agw/contracts';
import ICAL from 'ical.js';
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminFetch } from './helpers/admin-fixtures.js';
import { browserUnavailable, launchBrowser } from './helpers/browser.js';
import { contrastRatio, cssRules, hexIn } from './helpers/contrast.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { attachmentsOf, readDevMailbox, waitUntil } from './helpers/mail-sink.js';

// This file books about 20 times from 127.0.0.1 before its rate-limit test spends the rest.
const BOOKINGS_PER_MINUTE = 30;
const gateway = useGateway({
  env: {
    CALENDAR_BOOKINGS_PER_MINUTE: String(BOOKINGS_PER_MINUTE),
    // The month grid reads a month of slots in pages of the link's slot_limit (up to 9 reads for a
    // month open every day 09:00–17:00), and the browser tests read several months and zones within a
    // minute.
    CALENDAR_READS_PER_MINUTE: '1000',
  },
});
let key: string;
let calendarId: string;
let eventTypeId: string;

async function invoke(id: string, params: Record<string, unknown>) {
  const answer = await gateway.client.post(
    '/mcp/invoke',
    { id, params, idempotency_key: `cal-${randomUUID()}` },
    { key, idem: null },
  );
  return answer;
}
const validator = createValidator();

/**
 * The result of a run, checked against the capability's output schema. issue_secret is risk `high` in
 * the spec: it waits for an operator approval, given here through the admin API, then runs with the
 * approval token.
 */
async function result(id: string, params: Record<string, unknown>) {
  let answer = await invoke(id, params);
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
  const verdict = validator.validate(contract.output_schema, answer.json.result);
  if (!verdict.valid) throw new Error(`${id} result breaks its output schema: ${JSON.stringify(verdict)}`);
  return answer.json.result;
}

/** A fresh link; a secret link comes back with its one-time path. */
async function newLink(params: Record<string, unknown>): Promise<{ linkId: string; path: string }> {
  const created = await result('calendar.booking_link.manage', {
    operation: 'create',
    calendar_id: calendarId,
    title: 'Intro call',
    allowed_event_type_ids: [eventTypeId],
    min_notice_minutes: 0,
    ...params,
  });
  if (created.link.access_mode === 'public') return { linkId: created.link.id, path: created.url_path };
  const issued = await result('calendar.booking_link.issue_secret', { link_id: created.link.id });
  return { linkId: created.link.id, path: issued.url_path };
}

const getJson = async (path: string) => {
  const response = await fetch(`${gateway.url}${path}`);
  return { status: response.status, body: await response.json() };
};
const postJson = async (path: string, body: unknown) => {
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
};
/** The entities escapeHtml writes, read back. */
const readEntities = (text: string) =>
  text.replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code))).replace(/&amp;/g, '&');
/** What a page's booking form holds: text inputs, the textarea, the checked time and hidden fields. */
function formValues(html: string): Record<string, string> {
  const form = html.slice(html.indexOf('<form method="post"'));
  const values: Record<string, string> = {};
  for (const [input] of form.matchAll(/<input\b[^>]*>/g)) {
    const name = input.match(/\bname="([^"]*)"/)?.[1];
    const value = input.match(/\bvalue="([^"]*)"/)?.[1];
    if (!name || value === undefined) continue;
    if (input.includes('type="radio"') && !/\bchecked\b/.test(input)) continue;
    values[name] = readEntities(value);
  }
  const note = form.match(/<textarea[^>]*name="note"[^>]*>([\s\S]*?)<\/textarea>/)?.[1];
  if (note !== undefined) values.note = readEntities(note);
  return values;
}
/** A page's status, content type and HTML with its per-response nonce blanked (to compare whole pages). */
const pageOf = async (path: string) => {
  const response = await fetch(`${gateway.url}${path}`);
  const html = (await response.text()).replace(/nonce="[^"]*"/g, 'nonce=""');
  return { status: response.status, type: response.headers.get('content-type'), html };
};
const slotsOf = async (path: string, tz = 'Europe/Berlin') =>
  getJson(`${path}/slots?tz=${encodeURIComponent(tz)}`);

/**
 * A mail's calendar file read back with ical.js (a maintained RFC 5545 parser): the calendar's METHOD
 * and its one VEVENT. Fails when the file holds no VEVENT or more than one.
 */
function parseIcs(text: string) {
  const calendar = new ICAL.Component(ICAL.parse(text));
  const events = calendar.getAllSubcomponents('vevent');
  expect(events).toHaveLength(1);
  const event = events[0] as ICAL.Component;
  // A URI scheme is case-insensitive (RFC 3986); ical-generator writes MAILTO for attendees.
  const address = (value: unknown) => String(value).replace(/^mailto:/i, 'mailto:');
  const time = (name: string) => (event.getFirstPropertyValue(name) as ICAL.Time).toJSDate().toISOString();
  return {
    method: calendar.getFirstPropertyValue('method'),
    uid: event.getFirstPropertyValue('uid'),
    start: time('dtstart'),
    end: time('dtend'),
    summary: event.getFirstPropertyValue('summary'),
    status: event.getFirstPropertyValue('status'),
    sequence: event.getFirstPropertyValue('sequence'),
    organizer: address(event.getFirstPropertyValue('organizer')),
    attendees: event.getAllProperties('attendee').map((attendee) => address(attendee.getFirstValue())),
  };
}
/** `[yyyy-MM-dd, HH:mm]` of an instant in `zone`. */
const localParts = (iso: string, zone: string) => {
  const text = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(iso));
  return text.split(', ');
};
const mailTo = (to: string, subjectStart: string) =>
  waitUntil(async () =>
    (await readDevMailbox(gateway.dataDir)).find(
      (mail) => mail.to.includes(to) && mail.subject.startsWith(subjectStart),
    ),
  );

beforeAll(async () => {
  ({ key } = await approvedInstallation(gateway, '5'));
  const calendar = await result('calendar.calendar.manage', {
    operation: 'create',
    name: 'Dana Berg',
    timezone: 'Europe/Berlin',
    notification_email: 'dana@example.com',
  });
  calendarId = calendar.calendar.id;
  // Every day 09:00–17:00 Berlin, so the test finds slots whatever day it runs.
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
    buffer_after_minutes: 0,
    meeting_url: 'https://meet.example.com/dana',
  });
  eventTypeId = type.event_type.id;
});

describe('the agent’s setup', () => {
  it('answers availability in the calendar’s zone and refuses rules that do not make sense', async () => {
    const got = await result('calendar.availability.manage', { operation: 'get', calendar_id: calendarId });
    expect(got.count).toBe(7);
    expect(got.rules[1]).toEqual({
      day_of_week: 1,
      start_time: '09:00',
      end_time: '17:00',
      timezone: 'Europe/Berlin',
    });
    const backwards = await invoke('calendar.availability.manage', {
      operation: 'replace',
      calendar_id: calendarId,
      rules: [{ day_of_week: 1, start_time: '17:00', end_time: '09:00' }],
    });
    expect(backwards.status).toBe(400);
    expect(backwards.json.error.schema_pointer).toBe('/params/rules/0/end_time');
    const zone = await invoke('calendar.calendar.manage', {
      operation: 'create',
      name: 'X',
      timezone: 'Mars/Olympus',
    });
    expect(zone.status).toBe(400);
  });

  it('creates a secret link without a secret, and shows a secret once', async () => {
    const created = await result('calendar.booking_link.manage', {
      operation: 'create',
      calendar_id: calendarId,
      title: 'Hidden',
    });
    expect(created).toMatchObject({
      url_path: null,
      secret_redacted: true,
      link: { access_mode: 'secret', has_secret: false },
    });
    expect(JSON.stringify(created)).not.toContain('secret_sha256');
    const issued = await result('calendar.booking_link.issue_secret', { link_id: created.link.id });
    expect(issued.secret_once).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 bits, base64url
    expect(issued.url_path).toBe(`/book/${created.link.slug}/${issued.secret_once}`);
    const listed = await result('calendar.booking_link.manage', { operation: 'list' });
    expect(JSON.stringify(listed)).not.toContain(issued.secret_once);
  });

  it('slugs a German title by transliterating it, and answers the absolute url a person opens', async () => {
    const created = await result('calendar.booking_link.manage', {
      operation: 'create',
      calendar_id: calendarId,
      title: 'Erstgespräch Größe',
      access_mode: 'public',
      slug_suffix: 'x1',
      allowed_event_type_ids: [eventTypeId],
    });
    expect(created.link.slug).toBe('erstgespraech-groesse-x1');
    expect(created.url_path).toBe('/book/erstgespraech-groesse-x1');
    expect(created.url).toBe(`${gateway.url}/book/erstgespraech-groesse-x1`);
    expect((await fetch(created.url)).status).toBe(200);
    const secret = await result('calendar.booking_link.manage', {
      operation: 'create',
      calendar_id: calendarId,
      title: 'Straßenfest',
      slug_suffix: 'x2',
    });
    expect(secret.link.slug).toBe('strassenfest-x2');
    expect(secret.url).toBeUndefined();
    const issued = await result('calendar.booking_link.issue_secret', { link_id: secret.link.id });
    expect(issued.url).toBe(`${gateway.url}${issued.url_path}`);
    const calendar = await result('calendar.calendar.manage', { operation: 'create', name: 'Büro Köln' });
    expect(calendar.calendar.slug).toBe('buero-koeln');
  });
  // Every operation once, each result checked against its output schema by result().
  it('lists and updates calendars, event types and templates; archives a template', async () => {
    const renamed = await result('calendar.calendar.manage', {
      operation: 'update',
      calendar_id: calendarId,
      name: 'Dana Berg (Consulting)',
      default_duration_minutes: 45,
    });
    expect(renamed.calendar).toMatchObject({ name: 'Dana Berg (Consulting)', default_duration_minutes: 45 });
    const calendars = await result('calendar.calendar.manage', { operation: 'list' });
    expect(calendars.count).toBe(calendars.calendars.length);
    expect(calendars.calendars).toContainEqual(
      expect.objectContaining({ id: calendarId, name: 'Dana Berg (Consulting)' }),
    );
    await result('calendar.calendar.manage', {
      operation: 'update',
      calendar_id: calendarId,
      name: 'Dana Berg',
    });

    const spare = await result('calendar.event_type.manage', {
      operation: 'create',
      calendar_id: calendarId,
      name: 'Phone call',
      duration_minutes: 15,
    });
    const changed = await result('calendar.event_type.manage', {
      operation: 'update',
      event_type_id: spare.event_type.id,
      duration_minutes: 20,
      location: 'By phone',
    });
    expect(changed.event_type).toMatchObject({
      name: 'Phone call',
      duration_minutes: 20,
      location: 'By phone',
    });
    const types = await result('calendar.event_type.manage', { operation: 'list', calendar_id: calendarId });
    expect(types.event_types.map((type: { id: string }) => type.id)).toEqual(
      expect.arrayContaining([eventTypeId, spare.event_type.id]),
    );
    await result('calendar.event_type.manage', { operation: 'archive', event_type_id: spare.event_type.id });
    const active = await result('calendar.event_type.manage', { operation: 'list', calendar_id: calendarId });
    expect(active.event_types.map((type: { id: string }) => type.id)).not.toContain(spare.event_type.id);

    const template = await result('calendar.booking_link_template.manage', {
      operation: 'create',
      calendar_id: calendarId,
      name: 'Follow-up',
      slug_base: 'follow-up',
    });
    const templates = await result('calendar.booking_link_template.manage', { operation: 'list' });
    expect(templates.templates.map((t: { id: string }) => t.id)).toContain(template.template.id);
    const archived = await result('calendar.booking_link_template.manage', {
      operation: 'archive',
      template_id: template.template.id,
    });
    expect(archived.template.status).toBe('archived');
    const refused = await invoke('calendar.booking_link.manage', {
      operation: 'create',
      template_id: template.template.id,
    });
    expect(refused.status).toBe(409);
  });
});

describe('the agent’s bookings', () => {
  it('updates a booking’s title and notes and marks a no-show', async () => {
    const { path } = await newLink({ access_mode: 'public', one_time_use: false });
    const [slot] = (await slotsOf(path)).body.slots;
    const booked = await postJson(`${path}/bookings`, {
      start: slot.start,
      name: 'N',
      email: 'n@example.com',
    });
    expect(booked.status).toBe(201);
    const id = booked.body.booking.id;
    const edited = await result('calendar.booking.manage', {
      operation: 'update',
      booking_id: id,
      title: 'Intro call (moved to video)',
      notes: 'Bring the contract draft.',
    });
    expect(edited.booking).toMatchObject({
      title: 'Intro call (moved to video)',
      notes: 'Bring the contract draft.',
      status: 'confirmed',
      start_at: slot.start,
      sequence: 0,
    });
    const missed = await result('calendar.booking.manage', {
      operation: 'update',
      booking_id: id,
      status: 'no_show',
    });
    expect(missed.booking).toMatchObject({ status: 'no_show', notes: 'Bring the contract draft.' });
    const listed = await result('calendar.booking.manage', { operation: 'list', calendar_id: calendarId });
    expect(listed.bookings).toContainEqual(expect.objectContaining({ id, status: 'no_show' }));
  });
});

describe('the public JSON API', () => {
  it('offers slots in the visitor’s zone; a wrong, missing or revoked secret answers like an unknown link', async () => {
    const { linkId, path } = await newLink({ one_time_use: true });
    const kolkata = await slotsOf(path, 'Asia/Kolkata');
    expect(kolkata.status).toBe(200);
    const [first] = kolkata.body.slots;
    expect([first.local_date, first.local_time]).toEqual(localParts(first.start, 'Asia/Kolkata'));
    // 09:00–17:00 Berlin is 13:30–21:30 in Kolkata in winter (12:30–20:30 in summer).
    expect(first.local_time >= '12:30' && first.local_time <= '21:00').toBe(true);
    expect(Number(localParts(first.start, 'Europe/Berlin')[1]?.slice(0, 2))).toBeGreaterThanOrEqual(9);

    const unknown = await slotsOf('/book/no-such-link');
    const slug = path.split('/')[2];
    const wrongSecret = await slotsOf(`/book/${slug}/${'A'.repeat(43)}`);
    const noSecret = await slotsOf(`/book/${slug}`);
    await result('calendar.booking_link.manage', { operation: 'revoke', link_id: linkId });
    const revoked = await slotsOf(path);
    for (const answer of [unknown, wrongSecret, noSecret, revoked]) {
      expect(answer.status).toBe(404);
      expect({ ...answer.body.error, audit_id: 'x' }).toEqual({ ...unknown.body.error, audit_id: 'x' });
    }
    // The HTML page too: the same status and the same page, but for the per-response CSP nonce.
    const unknownPage = await pageOf('/book/no-such-link');
    expect(unknownPage.status).toBe(404);
    for (const other of [`/book/${slug}/${'A'.repeat(43)}`, `/book/${slug}`, path]) {
      expect(await pageOf(other)).toEqual(unknownPage);
    }
  });

  it('an expired link answers like an unknown one and lists as expired; a new validity reopens it', async () => {
    const { linkId, path } = await newLink({ access_mode: 'public', one_time_use: false, valid_days: 1 });
    expect((await slotsOf(path)).status).toBe(200);
    await gateway
      .knex('calendar_booking_links')
      .where({ id: linkId })
      .update({ valid_until: new Date(Date.now() - 1000) });
    const expired = await slotsOf(path);
    const unknown = await slotsOf('/book/no-such-link');
    expect(expired.status).toBe(404);
    expect({ ...expired.body.error, audit_id: 'x' }).toEqual({ ...unknown.body.error, audit_id: 'x' });
    expect(await pageOf(path)).toEqual(await pageOf('/book/no-such-link'));
    const listed = await result('calendar.booking_link.manage', { operation: 'list', status: 'expired' });
    expect(listed.links.map((link: { id: string }) => link.id)).toContain(linkId);
    await result('calendar.booking_link.manage', { operation: 'update', link_id: linkId, valid_days: 2 });
    expect((await slotsOf(path)).status).toBe(200);
  });

  it('re-issuing a secret voids the old one at once', async () => {
    const { linkId, path: old } = await newLink({});
    const again = await result('calendar.booking_link.issue_secret', { link_id: linkId });
    expect((await slotsOf(old)).status).toBe(404);
    expect((await slotsOf(again.url_path)).status).toBe(200);
  });

  it('books a one-time link once, mails both sides an .ics, and the link refuses a second booking', async () => {
    const { linkId, path } = await newLink({ one_time_use: true });
    const [slot, other] = (await slotsOf(path)).body.slots;
    const booked = await postJson(`${path}/bookings`, {
      start: slot.start,
      name: 'Kim Booker',
      email: 'kim@example.com',
      timezone: 'Asia/Kolkata',
    });
    expect(booked.status).toBe(201);
    expect(booked.body.booking).toMatchObject({ status: 'confirmed', start: slot.start, end: slot.end });
    const second = await postJson(`${path}/bookings`, {
      start: other.start,
      name: 'Kim',
      email: 'kim@example.com',
    });
    expect(second.status).toBe(404);
    const links = await result('calendar.booking_link.manage', { operation: 'list', status: 'booked' });
    expect(links.links.map((link: { id: string }) => link.id)).toContain(linkId);

    const toBooker = await mailTo('kim@example.com', 'Confirmed: Video call: Intro call');
    const toOrganizer = await mailTo('dana@example.com', 'Confirmed: Video call: Intro call with Kim Booker');
    expect(toBooker.body).toContain('(Asia/Kolkata)');
    expect(toOrganizer.body).toContain('(Europe/Berlin)');
    const [ics] = attachmentsOf(toBooker);
    expect(ics?.filename).toBe('invite.ics');
    const event = parseIcs(ics?.content.toString('utf8') ?? '');
    // What the mail promises: an invitation from the organizer to the booker at the booked time.
    expect(event).toEqual({
      method: 'REQUEST',
      uid: `${booked.body.booking.id}@agent-gateway.calendar`,
      start: slot.start,
      end: slot.end,
      summary: 'Video call: Intro call',
      status: 'CONFIRMED',
      sequence: 0,
      organizer: 'mailto:dana@example.com',
      attendees: ['mailto:kim@example.com'],
    });
    expect(parseIcs(attachmentsOf(toOrganizer)[0]?.content.toString('utf8') ?? '')).toEqual(event);

    // The agent sees it, and cancelling frees the slot at once and mails a CANCEL with the same UID.
    const listed = await result('calendar.booking.manage', { operation: 'list', calendar_id: calendarId });
    expect(listed.bookings.map((b: { id: string }) => b.id)).toContain(booked.body.booking.id);
    const publicLink = await newLink({ access_mode: 'public', one_time_use: false });
    const starts = async () =>
      (await slotsOf(publicLink.path)).body.slots.map((s: { start: string }) => s.start);
    expect(await starts()).not.toContain(slot.start);
    await result('calendar.booking.manage', {
      operation: 'cancel',
      booking_id: booked.body.booking.id,
      cancelled_reason: 'Ill',
    });
    expect(await starts()).toContain(slot.start);
    const cancelMail = await mailTo('kim@example.com', 'Cancelled:');
    const cancelled = parseIcs(attachmentsOf(cancelMail)[0]?.content.toString('utf8') ?? '');
    expect(cancelled).toEqual({ ...event, method: 'CANCEL', sequence: 1, status: 'CANCELLED' });
  });

  it('never books one time twice: the second answers slot_taken, and a move onto it is a conflict', async () => {
    const { path } = await newLink({ access_mode: 'public', one_time_use: false });
    const [slot, later] = (await slotsOf(path)).body.slots;
    const first = await postJson(`${path}/bookings`, {
      start: slot.start,
      name: 'A',
      email: 'a@example.com',
    });
    const twin = await postJson(`${path}/bookings`, { start: slot.start, name: 'B', email: 'b@example.com' });
    expect([first.status, twin.status]).toEqual([201, 409]);
    expect(twin.body.error.code).toBe('slot_taken');
    const other = await postJson(`${path}/bookings`, {
      start: later.start,
      name: 'C',
      email: 'c@example.com',
    });
    expect(other.status).toBe(201);
    const move = await invoke('calendar.booking.manage', {
      operation: 'update',
      booking_id: other.body.booking.id,
      start_at: slot.start,
    });
    expect(move.status).toBe(409);
    expect(move.json.error.message).toContain('slot_taken');
    // A direct insert that overlaps is refused by the database itself (the exclusion constraint).
    const row = await gateway.knex('calendar_bookings').where({ id: first.body.booking.id }).first();
    await expect(
      gateway.knex('calendar_bookings').insert({
        ...row,
        id: randomUUID(),
        start_at: new Date(Date.parse(slot.start) + 600_000),
        blocked_from: new Date(Date.parse(slot.start) + 600_000),
      }),
    ).rejects.toThrow(/calendar_bookings_no_overlap/);
  });

  it('binds a link to its recipient’s email when asked', async () => {
    const { path } = await newLink({ email_binding_required: true, recipient_email: 'only@example.com' });
    const [slot] = (await slotsOf(path)).body.slots;
    const stranger = await postJson(`${path}/bookings`, {
      start: slot.start,
      name: 'X',
      email: 'x@example.com',
    });
    expect(stranger.status).toBe(403);
    expect(stranger.body.error.code).toBe('email_binding_required');
    const owner = await postJson(`${path}/bookings`, {
      start: slot.start,
      name: 'O',
      email: 'ONLY@example.com',
    });
    expect(owner.status).toBe(201);
  });

  it('makes links from a template, and a paused template makes none', async () => {
    const template = await result('calendar.booking_link_template.manage', {
      operation: 'create',
      calendar_id: calendarId,
      name: 'Sales intro',
      slug_base: 'sales-intro',
      default_title: 'Meet our sales team',
      default_intro: 'Thirty minutes, no slides.',
      default_valid_days: 7,
      allowed_event_type_ids: [eventTypeId],
      phone_required: true,
      min_notice_minutes: 0,
    });
    const made = await result('calendar.booking_link.manage', {
      operation: 'create',
      template_id: template.template.id,
      slug_suffix: 'acme',
    });
    expect(made.link).toMatchObject({
      slug: 'sales-intro-acme',
      title: 'Meet our sales team',
      intro: 'Thirty minutes, no slides.',
      phone_required: true,
      one_time_use: true,
      status: 'active',
    });
    const days = (Date.parse(made.link.valid_until) - Date.parse(made.link.created_at)) / 86_400_000;
    expect(days).toBeCloseTo(7, 5);
    const issued = await result('calendar.booking_link.issue_secret', { link_id: made.link.id });
    const [slot] = (await slotsOf(issued.url_path)).body.slots;
    const noPhone = await postJson(`${issued.url_path}/bookings`, {
      start: slot.start,
      name: 'P',
      email: 'p@example.com',
    });
    expect(noPhone.status).toBe(400);
    const withPhone = await postJson(`${issued.url_path}/bookings`, {
      start: slot.start,
      name: 'P',
      email: 'p@example.com',
      phone: '+49 30 1234567',
    });
    expect(withPhone.status).toBe(201);
    await result('calendar.booking_link_template.manage', {
      operation: 'update',
      template_id: template.template.id,
      status: 'paused',
    });
    const paused = await invoke('calendar.booking_link.manage', {
      operation: 'create',
      template_id: template.template.id,
    });
    expect(paused.status).toBe(409);
  });

  it('moves a booking to a free time and mails the new time with a higher SEQUENCE', async () => {
    const { path } = await newLink({ access_mode: 'public', one_time_use: false });
    const slots = (await slotsOf(path)).body.slots;
    const booked = await postJson(`${path}/bookings`, {
      start: slots[0].start,
      name: 'M',
      email: 'mover@example.com',
    });
    const target = slots.at(-1);
    const moved = await result('calendar.booking.manage', {
      operation: 'update',
      booking_id: booked.body.booking.id,
      start_at: target.start,
    });
    expect(moved.booking).toMatchObject({ start_at: target.start, end_at: target.end, sequence: 1 });
    const mail = await mailTo('mover@example.com', 'Moved:');
    expect(parseIcs(attachmentsOf(mail)[0]?.content.toString('utf8') ?? '')).toMatchObject({
      method: 'REQUEST',
      uid: `${booked.body.booking.id}@agent-gateway.calendar`,
      start: target.start,
      end: target.end,
      sequence: 1,
      attendees: ['mailto:mover@example.com'],
    });
  });

  it('an archived event type is no longer offered; the page speaks the calendar’s language', async () => {
    const german = await result('calendar.calendar.manage', {
      operation: 'create',
      name: 'Praxis Weber',
      timezone: 'Europe/Berlin',
      locale: 'de',
    });
    await result('calendar.availability.manage', {
      operation: 'replace',
      calendar_id: german.calendar.id,
      rules: [0, 1, 2, 3, 4, 5, 6].map((day) => ({
        day_of_week: day,
        start_time: '08:00',
        end_time: '12:00',
      })),
    });
    const type = await result('calendar.event_type.manage', {
      operation: 'create',
      calendar_id: german.calendar.id,
      name: 'Beratung',
      duration_minutes: 60,
    });
    const link = await result('calendar.booking_link.manage', {
      operation: 'create',
      calendar_id: german.calendar.id,
      title: 'Erstgespräch',
      access_mode: 'public',
      allowed_event_type_ids: [type.event_type.id],
    });
    const page = await fetch(`${gateway.url}${link.url_path}?tz=Europe%2FBerlin`);
    const html = await page.text();
    expect(html).toContain('<html lang="de"');
    expect(html).toContain('Termin wählen');
    expect(html).toContain('Beratung, 60 min');
    expect(html).toContain('aria-label="Nächster Monat"');
    expect(html).not.toContain('dana@example.com');
    await result('calendar.event_type.manage', { operation: 'archive', event_type_id: type.event_type.id });
    const after = await slotsOf(link.url_path);
    // With its only type archived, the link offers the calendar's default meeting (30 minutes).
    expect(after.body.event_type).toMatchObject({ id: null, name: 'Erstgespräch', duration_minutes: 30 });
  });

  it('books through the page’s form without JavaScript (same-origin form post)', async () => {
    const { path } = await newLink({ one_time_use: true });
    const [slot] = (await slotsOf(path)).body.slots;
    const response = await fetch(`${gateway.url}${path}/bookings`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
      body: new URLSearchParams({
        start: slot.start,
        name: 'No Script',
        email: 'noscript@example.com',
        timezone: 'UTC',
      }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(await response.text()).toContain('<h1>Booked</h1>');
  });

  it('serves colours that meet WCAG contrast: text 4.5:1, focus ring and field borders 3:1', async () => {
    const { path } = await newLink({ access_mode: 'public', one_time_use: false });
    const html = await (await fetch(`${gateway.url}${path}`)).text();
    const rules = cssRules(html.match(/<style[^>]*>([\s\S]*?)<\/style>/)?.[1] ?? '');
    const page = hexIn(rules.get('body')?.background);
    const text = hexIn(rules.get('body')?.color);
    const checked: string[] = [];
    // Every rule that sets a text colour, on its own background or the page's; every background a
    // rule sets under body text.
    for (const [selector, declarations] of rules) {
      if (selector === 'body') continue;
      const ground = declarations.background ? hexIn(declarations.background) : page;
      const ink = declarations.color ? hexIn(declarations.color) : declarations.background ? text : undefined;
      if (!ink) continue;
      checked.push(selector);
      expect(contrastRatio(ink, ground), `${selector}: ${ink} on ${ground}`).toBeGreaterThanOrEqual(4.5);
    }
    expect(contrastRatio(text, page)).toBeGreaterThanOrEqual(4.5);
    expect(checked).toEqual(expect.arrayContaining(['.organizer', 'button', '.times label', '.error']));
    // The focus indicator sits on the page (outline-offset) next to white fields: 3:1 against both.
    const focus = [...rules].filter(([selector, d]) => selector.includes(':focus-visible') && d.outline);
    expect(focus.map(([selector]) => selector)).toEqual(
      expect.arrayContaining(['button:focus-visible', 'input:focus-visible', 'select:focus-visible']),
    );
    for (const [selector, declarations] of focus) {
      const ring = hexIn(declarations.outline);
      for (const ground of [page, '#ffffff']) {
        expect(contrastRatio(ring, ground), `${selector}: ${ring} on ${ground}`).toBeGreaterThanOrEqual(3);
      }
    }
    const border = hexIn(rules.get('input[type=text]')?.border);
    expect(contrastRatio(border, '#ffffff')).toBeGreaterThanOrEqual(3);
  });

  it('gives a refused form post back with what the visitor typed and the reason', async () => {
    const { path } = await newLink({ access_mode: 'public', one_time_use: false });
    const [slot] = (await slotsOf(path)).body.slots;
    const typed = {
      start: slot.start,
      name: 'Kim "K" <b>Booker</b> & Co',
      email: 'kim-at-example.com',
      note: 'Line one\n<script>alert(1)</script> & "two"',
      timezone: 'Asia/Kolkata',
    };
    const post = (fields: Record<string, string>) =>
      fetch(`${gateway.url}${path}/bookings`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
        body: new URLSearchParams(fields),
      });
    const invalid = await post(typed);
    expect(invalid.status).toBe(400);
    const page = await invalid.text();
    expect(page).toContain('<p class="error" role="alert">email: Give a valid email address.</p>');
    expect(formValues(page)).toMatchObject({
      name: typed.name,
      email: typed.email,
      note: typed.note,
      start: slot.start,
      timezone: 'Asia/Kolkata',
    });
    expect(page).not.toContain('<script>alert');

    // Taken in the meantime: the same answers come back, the time is no longer offered.
    expect(
      (await postJson(`${path}/bookings`, { start: slot.start, name: 'A', email: 'a@example.com' })).status,
    ).toBe(201);
    const taken = await post({ ...typed, email: 'kim@example.com' });
    expect(taken.status).toBe(409);
    const again = await taken.text();
    expect(again).toContain('That time was just taken. Please pick another.');
    expect(formValues(again)).toMatchObject({ name: typed.name, email: 'kim@example.com', note: typed.note });
    expect(formValues(again).start).toBeUndefined();
  });

  it('fills in the recipient on a secret link only; a public link never shows whom it was made for', async () => {
    const open = await newLink({
      access_mode: 'public',
      one_time_use: false,
      recipient_email: 'hidden-recipient@example.com',
      recipient_name: 'Hidden Recipient',
    });
    const html = await (await fetch(`${gateway.url}${open.path}`)).text();
    expect(html).toContain('id="email"');
    expect(html).not.toContain('hidden-recipient@example.com');
    expect(html).not.toContain('Hidden Recipient');
    const secret = await newLink({ recipient_email: 'sent-to@example.com', recipient_name: 'Sent To' });
    const personal = formValues(await (await fetch(`${gateway.url}${secret.path}`)).text());
    expect(personal).toMatchObject({ email: 'sent-to@example.com', name: 'Sent To' });
  });

  it('serves the page under a nonce-only CSP that lets its script read nothing but this gateway', async () => {
    const { path } = await newLink({ access_mode: 'public', one_time_use: false });
    const response = await fetch(`${gateway.url}${path}`);
    const csp = response.headers.get('content-security-policy') ?? '';
    const html = await response.text();
    const nonce = csp.match(/script-src 'nonce-([^']+)'/)?.[1];
    expect(nonce).toBeDefined();
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe');
    expect(html.match(/<script\b/g)).toHaveLength(1);
  });

  it('is listed in /openapi.json', async () => {
    const { body } = await getJson('/openapi.json');
    expect(Object.keys(body.paths)).toEqual(
      expect.arrayContaining([
        '/book/{slug}/slots',
        '/book/{slug}/bookings',
        '/book/{slug}/{secret}/slots',
        '/book/{slug}/{secret}/bookings',
      ]),
    );
  });

  it('refuses a form post from another site', async () => {
    const { path } = await newLink({ access_mode: 'public', one_time_use: false });
    const response = await fetch(`${gateway.url}${path}/bookings`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: 'start=2030-01-01T09%3A00%3A00Z&name=x&email=x%40example.com',
    });
    expect(response.status).toBe(403);
  });
});

// The README's picture (docs/images): refreshed with UPDATE_SCREENSHOTS=1, else written to a temporary folder so a
// test run leaves the checkout clean.
const SCREENSHOT = process.env.UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL('../../../docs/images/booking-page.png', import.meta.url))
  : join(tmpdir(), `agw-calendar-booking-page-${process.pid}.png`);

describe.skipIf(browserUnavailable)(`the booking page in chromium ${browserUnavailable ?? ''}`, () => {
  /** A time as the page's picker labels it: the page's language, the visitor's zone. */
  const timeLabel = (iso: string, zone: string) =>
    new Intl.DateTimeFormat('en', { timeZone: zone, hour: 'numeric', minute: 'numeric' }).format(
      new Date(iso),
    );
  const labelOf = (page: Page, input: Locator) =>
    input.getAttribute('id').then((id) => page.locator(`label[for="${id}"]`));

  it('a visitor in Kolkata opens a secret link, picks a day and a time in the month grid, books, sees the confirmation; the link then refuses', async () => {
    const { path } = await newLink({
      one_time_use: true,
      recipient_email: 'ravi@example.com',
      recipient_name: 'Ravi',
    });
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext({
        timezoneId: 'Asia/Kolkata',
        viewport: { width: 390, height: 844 },
      });
      const page = await context.newPage();
      const reads: string[] = [];
      page.on('request', (request) => reads.push(request.url()));
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(`${gateway.url}${path}`);
      await page.locator('#picker').waitFor({ state: 'visible' });
      // The script picked the visitor's zone from the browser (chromium names it by its older alias),
      // read the free times from the link's own JSON API in that zone, and replaced the no-JS list.
      const zone = await page.locator('#tz').inputValue();
      expect(['Asia/Kolkata', 'Asia/Calcutta']).toContain(zone);
      expect(await page.locator('input[name=timezone]').inputValue()).toBe(zone);
      expect(
        reads.some(
          (url) =>
            url.startsWith(`${gateway.url}${path}/slots?`) && url.includes(`tz=${encodeURIComponent(zone)}`),
        ),
      ).toBe(true);
      expect(await page.locator('#slot-list').count()).toBe(0);
      expect(await page.locator('h1').textContent()).toBe('Intro call');

      // Days with free times are marked; the first is picked. Pick another with the mouse: the month's
      // next one, or on its last free day (the month's end) the next month's first, shown by its button.
      const freeDays = page.locator('#picker tbody button.free');
      expect(await freeDays.count()).toBeGreaterThan(0);
      expect(await freeDays.first().getAttribute('aria-pressed')).toBe('true');
      let day = freeDays.nth(1);
      if ((await freeDays.count()) === 1) {
        const shown = await page.locator('#month-label').textContent();
        await page.locator('#next-month').click();
        await expect.poll(() => page.locator('#month-label').textContent()).not.toBe(shown);
        await expect.poll(() => freeDays.count()).toBeGreaterThan(0);
        day = freeDays.first();
      }
      const date = (await day.getAttribute('data-date')) as string;
      expect(await day.getAttribute('aria-label')).toMatch(/: \d+ free times?$/);
      await day.click();
      expect(await day.getAttribute('aria-pressed')).toBe('true');
      const firstTime = page.locator('#day-times input[name=start]').first();
      const start = (await firstTime.getAttribute('value')) as string;
      expect(localParts(start, 'Asia/Kolkata')[0]).toBe(date);
      expect(await (await labelOf(page, firstTime)).textContent()).toBe(timeLabel(start, 'Asia/Kolkata'));
      await (await labelOf(page, firstTime)).click();

      // The zone can be changed: the same time is relabelled in New York's without a reload, and back.
      // The times are drawn again when the zone's month has loaded; the picked one stays picked.
      const picked = page.locator(`#day-times input[value="${start}"]`);
      await page.locator('#tz').selectOption('America/New_York');
      await expect
        .poll(async () => (await picked.count()) && (await labelOf(page, picked)).textContent())
        .toBe(timeLabel(start, 'America/New_York'));
      expect(await picked.isChecked()).toBe(true);
      expect(await page.locator('input[name=timezone]').inputValue()).toBe('America/New_York');
      expect(page.url()).toContain('tz=America%2FNew_York');
      await page.locator('#tz').selectOption(zone);
      await expect
        .poll(async () => (await picked.count()) && (await labelOf(page, picked)).textContent())
        .toBe(timeLabel(start, 'Asia/Kolkata'));
      expect(await picked.isChecked()).toBe(true);
      expect(await page.locator('#email').inputValue()).toBe('ravi@example.com');
      await page.screenshot({ path: SCREENSHOT, fullPage: false });
      await page.getByRole('button', { name: 'Book' }).click();
      await expect.poll(() => page.locator('h1').textContent()).toBe('Booked');
      expect(await page.locator('main').textContent()).toContain('ravi@example.com');
      expect(await page.locator('main').textContent()).toContain(`(${zone})`);
      const bookings = await result('calendar.booking.manage', {
        operation: 'list',
        calendar_id: calendarId,
      });
      expect(
        bookings.bookings.find((b: { booker_email: string }) => b.booker_email === 'ravi@example.com'),
      ).toMatchObject({ start_at: start, booker_timezone: zone });
      expect(problems).toEqual([]); // no CSP refusal, no script error
      const again = await page.goto(`${gateway.url}${path}`);
      expect(again?.status()).toBe(404);
      expect(await page.locator('h1').textContent()).toBe('This booking link is not available.');

      // Without JavaScript the server-rendered day list is the page.
      const plain = await browser.newContext({ javaScriptEnabled: false });
      const noScript = await plain.newPage();
      const open = await newLink({ access_mode: 'public', one_time_use: false });
      await noScript.goto(`${gateway.url}${open.path}`);
      expect(await noScript.locator('#picker').isVisible()).toBe(false);
      expect(await noScript.locator('#slot-list input[name=start]').count()).toBeGreaterThan(0);
    } finally {
      await browser.close();
    }
  });

  it('a refused booking comes back in the grid with the chosen time, the typed answers and the reason', async () => {
    const { path } = await newLink({
      one_time_use: true,
      email_binding_required: true,
      recipient_email: 'bound@example.com',
    });
    const browser = await launchBrowser();
    try {
      const page = await (await browser.newContext({ timezoneId: 'Europe/Berlin' })).newPage();
      await page.goto(`${gateway.url}${path}`);
      await page.locator('#picker').waitFor({ state: 'visible' });
      const time = page.locator('#day-times input[name=start]').first();
      const start = (await time.getAttribute('value')) as string;
      await (await labelOf(page, time)).click();
      await page.locator('#name').fill('Not Bound');
      await page.locator('#email').fill('other@example.com');
      await page.locator('#note').fill('Please call first.');
      await page.getByRole('button', { name: 'Book' }).click();
      await expect
        .poll(() => page.locator('[role=alert]').textContent())
        .toBe('This link can only be booked with the email address it was sent to.');
      await page.locator('#picker').waitFor({ state: 'visible' });
      expect(await page.locator('#day-times input[name=start]:checked').getAttribute('value')).toBe(start);
      expect(
        await page
          .locator(`#picker tbody button[data-date="${localParts(start, 'Europe/Berlin')[0]}"]`)
          .getAttribute('aria-pressed'),
      ).toBe('true');
      expect(await page.locator('#name').inputValue()).toBe('Not Bound');
      expect(await page.locator('#email').inputValue()).toBe('other@example.com');
      expect(await page.locator('#note').inputValue()).toBe('Please call first.');
    } finally {
      await browser.close();
    }
  });

  it('books with the keyboard alone: the grid is one tab stop, arrows move by day and week, Enter picks', async () => {
    const { path } = await newLink({ one_time_use: true });
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext({ timezoneId: 'Europe/Berlin' });
      const page = await context.newPage();
      await page.goto(`${gateway.url}${path}?tz=Europe%2FBerlin`);
      await page.locator('#picker').waitFor({ state: 'visible' });
      const tabTo = async (selector: string) => {
        for (let i = 0; i < 40; i += 1) {
          await page.keyboard.press('Tab');
          if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
        }
        throw new Error(`Tab never reached ${selector}`);
      };
      const focusedDate = () =>
        page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.date ?? null);
      const plusDays = (date: string, days: number) =>
        new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
      await tabTo('#picker tbody button');
      const first = (await focusedDate()) as string;
      expect(await page.locator('#picker tbody button[tabindex="0"]').count()).toBe(1);
      await page.keyboard.press('ArrowDown');
      await expect.poll(focusedDate).toBe(plusDays(first, 7));
      await page.keyboard.press('ArrowUp');
      await expect.poll(focusedDate).toBe(first);
      // PageDown shows the next month (read from the API) with the same day focused; PageUp returns.
      const monthName = (date: string) =>
        new Intl.DateTimeFormat('en', { timeZone: 'UTC', month: 'long', year: 'numeric' }).format(
          new Date(`${date}T00:00:00Z`),
        );
      const nextMonth = plusDays(`${first.slice(0, 8)}01`, 32).slice(0, 7);
      const focusedMonth = async () => (await focusedDate())?.slice(0, 7);
      await page.keyboard.press('PageDown');
      await expect.poll(focusedMonth).toBe(nextMonth);
      expect(await page.locator('#month-label').textContent()).toBe(monthName(`${nextMonth}-01`));
      await page.keyboard.press('PageUp');
      await expect.poll(focusedMonth).toBe(first.slice(0, 7));
      // The week's Sunday (in the next month at a month's end: the focus moves once it has loaded), then
      // back day by day.
      await page.keyboard.press('End');
      const weekdayOf = (date: string | null) => date && new Date(`${date}T00:00:00Z`).getUTCDay();
      await expect.poll(async () => weekdayOf(await focusedDate())).toBe(0);
      const sunday = (await focusedDate()) as string;
      for (let back = (Date.parse(sunday) - Date.parse(first)) / 86_400_000; back > 0; back -= 1) {
        await page.keyboard.press('ArrowLeft');
      }
      await expect.poll(focusedDate).toBe(first);
      await page.keyboard.press('ArrowRight');
      const day = plusDays(first, 1);
      await expect.poll(focusedDate).toBe(day);
      await page.keyboard.press('Enter');
      await expect
        .poll(() => page.locator(`#picker tbody button[data-date="${day}"]`).getAttribute('aria-pressed'))
        .toBe('true');
      await tabTo('#day-times input[name=start]');
      await page.keyboard.press('ArrowRight'); // the second time of that day (arrows move and select)
      const chosen = await page.evaluate(() => (document.activeElement as HTMLInputElement).value);
      expect(localParts(chosen, 'Europe/Berlin')[0]).toBe(day);
      await tabTo('#name');
      await page.keyboard.type('Key Board');
      await tabTo('#email');
      await page.keyboard.type('keys@example.com');
      await tabTo('form#book button[type=submit]');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.locator('h1').textContent()).toBe('Booked');
      const bookings = await result('calendar.booking.manage', {
        operation: 'list',
        calendar_id: calendarId,
      });
      expect(
        bookings.bookings.find((b: { booker_email: string }) => b.booker_email === 'keys@example.com')
          ?.start_at,
      ).toBe(chosen);
    } finally {
      await browser.close();
    }
  });
});

describe('abuse', () => {
  // Last: it spends this address's booking budget for the rest of the minute.
  it('rate limits booking attempts per client address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= BOOKINGS_PER_MINUTE; i += 1)
      statuses.push((await postJson('/book/no-such-link/bookings', {})).status);
    expect(statuses.slice(-1)).toEqual([429]);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
  });
});
