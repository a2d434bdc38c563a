import { DateTime, IANAZone } from 'luxon';

/** One weekly rule: wall-clock `HH:MM[:SS]` times on `day_of_week` (0 = Sunday) in an IANA zone. */
export interface AvailabilityRule {
  readonly day_of_week: number;
  readonly start_time: string;
  readonly end_time: string;
  readonly timezone: string;
}

/** Time already taken (a booking with its buffers), half-open. */
export interface BusyRange {
  readonly from: Date;
  readonly until: Date;
}

/** What decides the free slots of one link and event type. */
export interface SlotQuery {
  readonly rules: readonly AvailabilityRule[];
  readonly busy: readonly BusyRange[];
  readonly durationMinutes: number;
  readonly bufferBeforeMinutes: number;
  readonly bufferAfterMinutes: number;
  readonly now: Date;
  readonly minNoticeMinutes: number;
  readonly bookingWindowDays: number;
  /** The range asked for: slots starting at or after `from` and before `to`. */
  readonly from: Date;
  readonly to: Date;
  readonly limit: number;
}

/** A free slot, half-open. */
export interface Slot {
  readonly start: Date;
  readonly end: Date;
}

/** The first `limit` free slots in order; `more` says whether later ones were left out. */
export interface SlotPage {
  readonly slots: readonly Slot[];
  readonly more: boolean;
}

/** True for an IANA zone name luxon (and so the host's ICU data) knows. */
export function isTimeZone(name: string): boolean {
  return IANAZone.isValidZone(name);
}

/** Minutes since midnight of `HH:MM[:SS]` (seconds are dropped: slots start on whole minutes). */
export function minutesOfDay(time: string): number {
  const [hours = '0', minutes = '0'] = time.split(':');
  return Number(hours) * 60 + Number(minutes);
}

/**
 * The free slots. Rules are wall-clock: a slot starts at the rule's start and every `durationMinutes`
 * of wall-clock time after it, each start placed in the rule's zone by luxon, so 09:00 Berlin stays
 * 09:00 Berlin across DST. A wall-clock start that does not exist that day (the skipped hour) is not
 * offered; one that exists twice (the repeated hour) is offered once, at
 * its second occurrence (standard time: how luxon resolves an ambiguous local time). A slot
 * lasts `durationMinutes` of real time and must end by the rule's end. A slot is free when the meeting
 * with its buffers overlaps no busy range; it must start `minNoticeMinutes` after `now` and within
 * `bookingWindowDays` of it.
 */
export function computeSlots(query: SlotQuery): SlotPage {
  const earliest = Math.max(query.from.getTime(), query.now.getTime() + query.minNoticeMinutes * 60_000);
  const latest = Math.min(query.to.getTime(), query.now.getTime() + query.bookingWindowDays * 86_400_000);
  const starts = new Map<number, Slot>();
  if (earliest >= latest) return { slots: [], more: false };
  for (const rule of query.rules) {
    const zone = rule.timezone;
    // Local dates that may hold a slot in [earliest, latest): one day of slack on each side covers
    // any zone's offset.
    let day = DateTime.fromMillis(earliest, { zone }).startOf('day').minus({ days: 1 });
    const lastDay = DateTime.fromMillis(latest, { zone }).startOf('day').plus({ days: 1 });
    for (; day <= lastDay; day = day.plus({ days: 1 })) {
      if (day.weekday % 7 !== rule.day_of_week) continue;
      collectRuleDay(query, rule, day, earliest, latest, starts);
    }
  }
  const ordered = [...starts.values()].sort((a, b) => a.start.getTime() - b.start.getTime());
  return { slots: ordered.slice(0, query.limit), more: ordered.length > query.limit };
}

function collectRuleDay(
  query: SlotQuery,
  rule: AvailabilityRule,
  day: DateTime,
  earliest: number,
  latest: number,
  into: Map<number, Slot>,
): void {
  const zone = rule.timezone;
  const at = (minutes: number) =>
    DateTime.fromObject(
      {
        year: day.year,
        month: day.month,
        day: day.day,
        hour: Math.floor(minutes / 60),
        minute: minutes % 60,
      },
      { zone },
    );
  const startMinute = minutesOfDay(rule.start_time);
  const endMinute = minutesOfDay(rule.end_time);
  const ruleEnd = at(endMinute).toMillis();
  const durationMs = query.durationMinutes * 60_000;
  for (
    let minute = startMinute;
    minute + query.durationMinutes <= endMinute;
    minute += query.durationMinutes
  ) {
    const local = at(minute);
    // luxon moves a time in the skipped hour forward; such a wall-clock time does not exist that day.
    if (local.hour * 60 + local.minute !== minute) continue;
    const start = local.toMillis();
    const end = start + durationMs;
    if (end > ruleEnd || start < earliest || start >= latest) continue;
    const blockedFrom = start - query.bufferBeforeMinutes * 60_000;
    const blockedUntil = end + query.bufferAfterMinutes * 60_000;
    const taken = query.busy.some(
      (busy) => busy.from.getTime() < blockedUntil && blockedFrom < busy.until.getTime(),
    );
    if (!taken) into.set(start, { start: new Date(start), end: new Date(end) });
  }
}
