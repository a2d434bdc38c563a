import { type CapabilityContext, CapabilityError } from '../define.js';
import { isTimeZone } from './slots.js';

export { contractOf as calendarContract } from '../contract-of.js';

/** Refuses the run with one violation at `/params/<field>`. */
export function invalid(field: string, message: string): never {
  throw new CapabilityError('validation_failed', message, [
    { schema_pointer: `/params/${field}`, keyword: 'calendar', message },
  ]);
}

/** Refuses unless `value` is present (a field the chosen operation needs). */
export function required<T>(value: T | undefined, field: string, operation: string): NonNullable<T> {
  if (value === undefined || value === null)
    invalid(field, `${field} is required for operation ${operation}.`);
  return value as NonNullable<T>;
}

/** Refuses an IANA zone name this host does not know. */
export function checkTimeZone(value: string, field: string): string {
  if (!isTimeZone(value)) invalid(field, `${value} is not an IANA time zone (e.g. Europe/Berlin).`);
  return value;
}

/** ISO 8601 text of a timestamp column, or null. */
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

// One plain address: no whitespace or control character, nothing a mail header or an .ics line reads
// as a second address, a parameter or a quote (the gateway's mail staging refuses those too).
const ADDRESS_PART = '[^\\s\\u0000-\\u001f\\u007f-\\u009f@<>,;:"\\\\()[\\]]+';
const MAIL_ADDRESS = new RegExp(`^${ADDRESS_PART}@${ADDRESS_PART}\\.${ADDRESS_PART}$`);

/** True for a syntactically plausible single address of at most 320 characters. */
export function isMailAddress(value: string): boolean {
  return value.length <= 320 && MAIL_ADDRESS.test(value);
}

/** A syntactically plausible address (the mail transport decides the rest). */
export function checkEmail(value: string, field: string): string {
  if (!isMailAddress(value)) invalid(field, 'Give a valid email address.');
  return value;
}

/** True when `error` (or its cause) is PostgreSQL's exclusion violation: the time is taken. */
export function isOverlap(error: unknown): boolean {
  return sqlState(error) === '23P01';
}

/** True when `error` is a unique violation. */
export function isUniqueViolation(error: unknown): boolean {
  return sqlState(error) === '23505';
}

function sqlState(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 4; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The conflict a caller sees when the time is no longer free. */
export function slotTaken(): CapabilityError {
  return new CapabilityError('conflict', 'slot_taken: that time overlaps another booking of this calendar.');
}

/** The context fields calendar SQL needs. */
export type CalendarContext = Pick<CapabilityContext, 'sql' | 'organizationId' | 'ids' | 'now'>;
