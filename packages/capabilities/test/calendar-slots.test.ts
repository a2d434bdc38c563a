// Slot computation against hand-computed tables across the 2026 DST changes: Europe/Berlin (29 March,
// 25 October), America/New_York (8 March, 1 November), and what a visitor in Asia/Kolkata sees.
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { type AvailabilityRule, computeSlots, type SlotQuery } from '../src/calendar/slots.js';

const base = (
  rules: AvailabilityRule[],
  from: string,
  to: string,
  extra: Partial<SlotQuery> = {},
): SlotQuery => ({
  rules,
  busy: [],
  durationMinutes: 60,
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
  now: new Date('2026-01-01T00:00:00Z'),
  minNoticeMinutes: 0,
  bookingWindowDays: 365,
  from: new Date(from),
  to: new Date(to),
  limit: 60,
  ...extra,
});
const starts = (query: SlotQuery) =>
  computeSlots(query).slots.map((slot) => slot.start.toISOString().slice(0, 16));

describe('Europe/Berlin, 09:00–12:00 every day, 60 minutes', () => {
  const rules = [0, 1, 2, 3, 4, 5, 6].map((day) => ({
    day_of_week: day,
    start_time: '09:00',
    end_time: '12:00',
    timezone: 'Europe/Berlin',
  }));
  it('stays 09:00 local across the spring change (UTC+1 → UTC+2)', () => {
    expect(starts(base(rules, '2026-03-28T00:00:00Z', '2026-03-30T00:00:00Z'))).toEqual([
      '2026-03-28T08:00',
      '2026-03-28T09:00',
      '2026-03-28T10:00', // Saturday, CET
      '2026-03-29T07:00',
      '2026-03-29T08:00',
      '2026-03-29T09:00', // Sunday, CEST
    ]);
  });
  it('stays 09:00 local across the autumn change (UTC+2 → UTC+1)', () => {
    expect(starts(base(rules, '2026-10-24T00:00:00Z', '2026-10-26T00:00:00Z'))).toEqual([
      '2026-10-24T07:00',
      '2026-10-24T08:00',
      '2026-10-24T09:00',
      '2026-10-25T08:00',
      '2026-10-25T09:00',
      '2026-10-25T10:00',
    ]);
  });
});

describe('Europe/Berlin, a Sunday rule 01:00–04:00 over the change itself', () => {
  const rules = [{ day_of_week: 0, start_time: '01:00', end_time: '04:00', timezone: 'Europe/Berlin' }];
  it('offers no slot in the skipped hour (02:00 does not exist on 29 March)', () => {
    // 01:00 CET = 00:00Z; 02:00 skipped; 03:00 CEST = 01:00Z, ends 04:00 CEST = 02:00Z.
    expect(starts(base(rules, '2026-03-28T12:00:00Z', '2026-03-29T12:00:00Z'))).toEqual([
      '2026-03-29T00:00',
      '2026-03-29T01:00',
    ]);
  });
  it('offers the repeated hour once (02:00 exists twice on 25 October)', () => {
    // 01:00 CEST = 23:00Z; 02:00 once, at its second occurrence (CET, 01:00Z, as luxon resolves it);
    // 03:00 CET = 02:00Z (ends 04:00 CET). 00:00Z (the first 02:00, CEST) is not offered a second time.
    expect(starts(base(rules, '2026-10-24T12:00:00Z', '2026-10-25T12:00:00Z'))).toEqual([
      '2026-10-24T23:00',
      '2026-10-25T01:00',
      '2026-10-25T02:00',
    ]);
  });
});

describe('America/New_York, Monday 09:00–11:00 and Sunday 01:00–04:00, 60 minutes', () => {
  const rules = [
    { day_of_week: 1, start_time: '09:00', end_time: '11:00', timezone: 'America/New_York' },
    { day_of_week: 0, start_time: '01:00', end_time: '04:00', timezone: 'America/New_York' },
  ];
  it('spring, 8 March: 02:00 skipped on Sunday, Monday 09:00 is 13:00Z (EDT) instead of 14:00Z (EST)', () => {
    expect(starts(base(rules, '2026-03-01T00:00:00Z', '2026-03-10T00:00:00Z'))).toEqual([
      '2026-03-01T06:00',
      '2026-03-01T07:00',
      '2026-03-01T08:00', // Sunday 1 March, EST
      '2026-03-02T14:00',
      '2026-03-02T15:00', // Monday 2 March, EST
      '2026-03-08T06:00',
      '2026-03-08T07:00', // Sunday 8 March: 01:00 EST, 03:00 EDT
      '2026-03-09T13:00',
      '2026-03-09T14:00', // Monday 9 March, EDT
    ]);
  });
  it('autumn, 1 November: 01:00 exists twice and is offered once', () => {
    // 01:00 once, at its second occurrence (EST, 06:00Z); 02:00 EST = 07:00Z; 03:00 EST = 08:00Z.
    // The first 01:00 (EDT, 05:00Z) is not offered a second time.
    expect(starts(base(rules, '2026-11-01T00:00:00Z', '2026-11-03T00:00:00Z'))).toEqual([
      '2026-11-01T06:00',
      '2026-11-01T07:00',
      '2026-11-01T08:00',
      '2026-11-02T14:00',
      '2026-11-02T15:00',
    ]);
  });
});

describe('a visitor in Asia/Kolkata (UTC+5:30, no DST)', () => {
  it('sees Berlin’s 09:00 as 13:30 in winter and 12:30 in summer', () => {
    const rules = [{ day_of_week: 1, start_time: '09:00', end_time: '10:00', timezone: 'Europe/Berlin' }];
    const slots = computeSlots(base(rules, '2026-03-23T00:00:00Z', '2026-04-01T00:00:00Z')).slots;
    const local = slots.map((slot) =>
      DateTime.fromJSDate(slot.start, { zone: 'Asia/Kolkata' }).toFormat('yyyy-MM-dd HH:mm'),
    );
    expect(local).toEqual(['2026-03-23 13:30', '2026-03-30 12:30']);
  });
});

describe('rules of a link', () => {
  const rules = [{ day_of_week: 2, start_time: '09:00', end_time: '12:00', timezone: 'UTC' }];
  const week = ['2026-12-01T00:00:00Z', '2026-12-02T00:00:00Z'] as const; // Tuesday 1 December
  it('min notice drops slots that start too soon', () => {
    const now = new Date('2026-12-01T08:30:00Z');
    expect(starts(base(rules, ...week, { now, minNoticeMinutes: 60 }))).toEqual([
      '2026-12-01T10:00',
      '2026-12-01T11:00',
    ]);
  });
  it('the booking window drops slots too far ahead', () => {
    const now = new Date('2026-11-30T09:30:00Z');
    expect(starts(base(rules, ...week, { now, bookingWindowDays: 1 }))).toEqual(['2026-12-01T09:00']);
  });
  it('a booking blocks its time and, with buffers, its neighbours', () => {
    const busy = [{ from: new Date('2026-12-01T10:00:00Z'), until: new Date('2026-12-01T10:30:00Z') }];
    expect(starts(base(rules, ...week, { busy }))).toEqual(['2026-12-01T09:00', '2026-12-01T11:00']);
    expect(starts(base(rules, ...week, { busy, bufferAfterMinutes: 15 }))).toEqual(['2026-12-01T11:00']);
  });
  it('duration sets the step and the last start; the limit cuts and says so', () => {
    expect(starts(base(rules, ...week, { durationMinutes: 45 }))).toEqual([
      '2026-12-01T09:00',
      '2026-12-01T09:45',
      '2026-12-01T10:30',
      '2026-12-01T11:15', // ends 12:00
    ]);
    expect(computeSlots(base(rules, ...week, { durationMinutes: 30, limit: 4 }))).toMatchObject({
      more: true,
    });
    expect(starts(base(rules, ...week, { durationMinutes: 30, limit: 4 }))).toHaveLength(4);
  });
});
