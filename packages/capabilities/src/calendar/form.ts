import { isDisplayText, isMultilineText } from '@agw/contracts';
import { isMailAddress } from './common.js';
import { isTimeZone } from './slots.js';
import { TIME_REACH_DAYS, timeInReach } from './time-range.js';

/** A visitor's booking fields, checked; or the first field that is wrong. */
export type ParsedBooking =
  | {
      readonly start: string;
      readonly event_type_id?: string | undefined;
      readonly name: string;
      readonly email: string;
      readonly phone?: string | undefined;
      readonly note?: string | undefined;
      readonly timezone?: string | undefined;
    }
  | { readonly field: string; readonly message: string };

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value.trim() : undefined);

/**
 * Checks the fields of a booking form or JSON body (lengths as the page's own inputs say). The name
 * goes into a mail subject and an `.ics` parameter: one line of display text (no control or bidi
 * characters, as the contracts' `display-text` format). The note may span lines (`multiline-text`).
 * The address must be one plain address the mail transport takes as it is.
 */
export function checkEmailText(fields: Record<string, unknown>, now: Date): ParsedBooking {
  const start = text(fields.start);
  const name = text(fields.name);
  const email = text(fields.email);
  const phone = text(fields.phone) || undefined;
  const note = text(fields.note) || undefined;
  const timezone = text(fields.timezone) || undefined;
  const eventTypeId = text(fields.event_type_id) || undefined;
  if (!start || !timeInReach(start, now)) {
    return { field: 'start', message: `Pick a time (within ${TIME_REACH_DAYS} days).` };
  }
  if (!name || name.length > 160) return { field: 'name', message: 'Give a name (at most 160 characters).' };
  if (!isDisplayText(name)) {
    return { field: 'name', message: 'The name must be one line without control characters.' };
  }
  if (!email || !isMailAddress(email)) return { field: 'email', message: 'Give a valid email address.' };
  if (phone && (phone.length > 40 || !/^[+0-9 ()./-]{3,40}$/.test(phone))) {
    return { field: 'phone', message: 'Give a valid phone number.' };
  }
  if (note && note.length > 2000)
    return { field: 'note', message: 'The note is longer than 2000 characters.' };
  if (note && !isMultilineText(note)) {
    return { field: 'note', message: 'The note must not contain control characters.' };
  }
  if (timezone && !isTimeZone(timezone)) return { field: 'timezone', message: 'Unknown time zone.' };
  if (eventTypeId && !/^[0-9a-f-]{36}$/i.test(eventTypeId))
    return { field: 'event_type_id', message: 'Unknown event type.' };
  return { start, name, email, phone, note, timezone, event_type_id: eventTypeId };
}
