// Event ids are UUID version 7: valid UUIDs whose order follows the time they were made, so inserts
// append to the primary key instead of landing on a random page.

import { describe, expect, it } from 'vitest';
import { eventId } from '../src/analytics/event-id.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('eventId', () => {
  it('is a version 7 UUID carrying the millisecond it was made in', () => {
    const ms = Date.parse('2026-11-25T01:45:00.123Z');
    const id = eventId(ms);
    expect(id).toMatch(UUID_V7);
    expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(ms);
  });

  it('sorts by time across milliseconds and differs within one', () => {
    const ms = Date.parse('2026-11-25T01:45:00.123Z');
    const ids = [eventId(ms), eventId(ms), eventId(ms + 1), eventId(ms + 1000)];
    expect(new Set(ids).size).toBe(4);
    expect((ids[1] as string) < (ids[2] as string)).toBe(true);
    expect((ids[2] as string) < (ids[3] as string)).toBe(true);
  });
});
