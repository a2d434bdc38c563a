/**
 * How far from now a visitor's time may lie: booking windows are at most 365 days, and a month view
 * at the window's end reaches a little past it. Anything further is refused before it reaches luxon
 * or the database (a year-0001 or year-9999 time plus the slot search's margin is a year PostgreSQL
 * cannot store).
 */
export const TIME_REACH_DAYS = 400;

/** The longest range one slots query may ask for (`to` − `from`, or `to` − now): a quarter, three month views. */
export const MAX_SLOT_RANGE_DAYS = 92;

const DAY_MS = 86_400_000;

/** The time `text` names (ISO 8601) when it lies within {@link TIME_REACH_DAYS} of `now`; else undefined. */
export function timeInReach(text: string, now: Date): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}(T|$)/.test(text)) return undefined;
  const time = Date.parse(text);
  if (Number.isNaN(time) || Math.abs(time - now.getTime()) > TIME_REACH_DAYS * DAY_MS) return undefined;
  return new Date(time);
}

/** What a slots query asked for, checked; or the parameter that is wrong and why. */
export type SlotRange =
  | { readonly from: Date | undefined; readonly to: Date | undefined }
  | { readonly parameter: 'from' | 'to'; readonly message: string };

/** Checks the `from` and `to` of a slots query or a page (each optional). */
export function checkSlotRange(query: URLSearchParams, now: Date): SlotRange {
  const read = (name: 'from' | 'to') => {
    const text = query.get(name);
    return text === null ? undefined : (timeInReach(text, now) ?? null);
  };
  const from = read('from');
  const to = read('to');
  const reach = `must be an ISO 8601 time within ${TIME_REACH_DAYS} days of now.`;
  if (from === null) return { parameter: 'from', message: `from ${reach}` };
  if (to === null) return { parameter: 'to', message: `to ${reach}` };
  // Without `from` the range starts now, so a far `to` alone asks for as much as both would.
  if (to && to.getTime() - (from ?? now).getTime() > MAX_SLOT_RANGE_DAYS * DAY_MS) {
    return {
      parameter: 'to',
      message: `to may be at most ${MAX_SLOT_RANGE_DAYS} days after from (or after now without from).`,
    };
  }
  return { from, to };
}
