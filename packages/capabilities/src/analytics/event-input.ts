import { DISPLAY_TEXT_MESSAGE, isDisplayText } from '@agw/contracts';

/** An event as a page or a server sends it, after checking. */
export interface IncomingEvent {
  readonly name: string;
  readonly url: URL | null;
  readonly referrer: URL | null;
  readonly category: string | null;
  readonly source: string | null;
  readonly outcome: string | null;
  /** Absent when the event has none (stored as `{}`). */
  readonly properties: Record<string, unknown> | undefined;
  readonly occurredAt: Date;
}

/** One problem with a sent body, in the shape of the spec's `details[]`. */
export interface Violation {
  readonly schema_pointer: string;
  readonly keyword: string;
  readonly message: string;
}

export const MAX_BATCH = 100;
// One for the process: making a TextDecoder costs more than decoding a page view's body.
const decoder = new TextDecoder('utf-8', { fatal: true });
const MAX_PROPERTIES_BYTES = 2048;
/** Levels of objects and arrays in `properties`, the properties object itself being the first. */
export const MAX_PROPERTIES_DEPTH = 5;
const MAX_URL_LENGTH = 2048;
/** How far back a sender may date an event (a page that was offline, a server catching up). */
const MAX_AGE_MS = 31 * 86_400_000;
const MAX_FUTURE_MS = 5 * 60_000;

class Invalid extends Error {
  constructor(readonly violation: Violation) {
    super(violation.message);
  }
}

function fail(pointer: string, keyword: string, message: string): never {
  throw new Invalid({ schema_pointer: pointer, keyword, message });
}

const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';
const SURROGATE_MESSAGE = 'must not contain a lone UTF-16 surrogate (it has no UTF-8 form)';
// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * PostgreSQL stores neither U+0000 nor a lone surrogate in text or json: the event would be answered
 * 202 and then refused by the database, lost without a word.
 */
function storable(value: string, pointer: string): void {
  if (value.includes('\u0000')) fail(pointer, 'characters', NUL_MESSAGE);
  if (LONE_SURROGATE.test(value)) fail(pointer, 'characters', SURROGATE_MESSAGE);
}

function text(value: unknown, pointer: string, max: number, required = false): string | null {
  if (value === undefined || value === null) {
    if (required) fail(pointer, 'required', 'is required');
    return null;
  }
  if (typeof value !== 'string') fail(pointer, 'type', 'must be a string');
  const trimmed = value.trim();
  if (trimmed.length === 0) {
    if (required) fail(pointer, 'minLength', 'must not be empty');
    return null;
  }
  if (trimmed.length > max) fail(pointer, 'maxLength', `must be at most ${max} characters`);
  storable(trimmed, pointer);
  return trimmed;
}

/** A name the stats show (name, category, source, outcome): the contracts' `display-text` rule. */
function label(value: unknown, pointer: string, max: number, required = false): string | null {
  const checked = text(value, pointer, max, required);
  if (checked !== null && !isDisplayText(checked)) fail(pointer, 'format', DISPLAY_TEXT_MESSAGE);
  return checked;
}

/** `/`-separated JSON Pointer step (RFC 6901). */
function step(pointer: string, key: string): string {
  return `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

/**
 * Checks `properties` without recursion (JSON.parse builds any depth a 256 KiB body holds, and a
 * recursive walk or JSON.stringify of 5 000 levels overflows the stack): at most MAX_PROPERTIES_DEPTH
 * levels, no key or string the database cannot store, then at most MAX_PROPERTIES_BYTES as JSON.
 */
function checkProperties(properties: object, pointer: string): void {
  const pending: Array<{ value: unknown; depth: number; pointer: string }> = [
    { value: properties, depth: 1, pointer },
  ];
  // Each value takes at least one byte of the JSON: more values than bytes allowed is too large already.
  let values = 0;
  while (pending.length > 0) {
    const item = pending.pop() as (typeof pending)[number];
    values += 1;
    if (values > MAX_PROPERTIES_BYTES) tooLarge(pointer);
    if (typeof item.value === 'string') storable(item.value, item.pointer);
    if (typeof item.value !== 'object' || item.value === null) continue;
    if (item.depth > MAX_PROPERTIES_DEPTH)
      fail(pointer, 'maxDepth', `must nest objects and arrays at most ${MAX_PROPERTIES_DEPTH} levels deep`);
    const entries: Array<[string, unknown]> = Array.isArray(item.value)
      ? item.value.map((value, index) => [String(index), value])
      : Object.entries(item.value);
    for (const [key, value] of entries) {
      if (!Array.isArray(item.value)) storable(key, item.pointer);
      pending.push({ value, depth: item.depth + 1, pointer: step(item.pointer, key) });
    }
  }
  if (Buffer.byteLength(JSON.stringify(properties), 'utf8') > MAX_PROPERTIES_BYTES) tooLarge(pointer);
}

function tooLarge(pointer: string): never {
  fail(pointer, 'maxLength', `must serialize to at most ${MAX_PROPERTIES_BYTES} bytes`);
}

function url(value: unknown, pointer: string): URL | null {
  const raw = text(value, pointer, MAX_URL_LENGTH);
  if (raw === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    fail(pointer, 'format', 'must be an absolute http(s) URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    fail(pointer, 'format', 'must be an http(s) URL');
  return parsed;
}

function event(value: unknown, pointer: string, now: Date): IncomingEvent {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail(pointer, 'type', 'must be an object');
  const input = value as Record<string, unknown>;
  // null is taken as absent, as before.
  const properties = input.properties ?? undefined;
  if (properties !== undefined && (typeof properties !== 'object' || Array.isArray(properties))) {
    fail(`${pointer}/properties`, 'type', 'must be an object');
  }
  if (properties !== undefined) checkProperties(properties, `${pointer}/properties`);
  let occurredAt = now;
  if (input.occurred_at !== undefined) {
    const raw = text(input.occurred_at, `${pointer}/occurred_at`, 40, true) as string;
    occurredAt = new Date(raw);
    if (Number.isNaN(occurredAt.getTime()) || !/^\d{4}-\d{2}-\d{2}T/.test(raw)) {
      fail(`${pointer}/occurred_at`, 'format', 'must be an RFC 3339 timestamp');
    }
    const age = now.getTime() - occurredAt.getTime();
    if (age > MAX_AGE_MS || age < -MAX_FUTURE_MS) {
      fail(`${pointer}/occurred_at`, 'range', 'must be within the last 31 days and not in the future');
    }
  }
  return {
    name: label(input.name, `${pointer}/name`, 120, true) as string,
    url: url(input.url, `${pointer}/url`),
    referrer: url(input.referrer, `${pointer}/referrer`),
    category: label(input.category, `${pointer}/category`, 80),
    source: label(input.source, `${pointer}/source`, 80),
    outcome: label(input.outcome, `${pointer}/outcome`, 80),
    properties: properties as Record<string, unknown> | undefined,
    occurredAt,
  };
}

/**
 * A POST /a/events body: `{ingestion_id, ...one event}` or `{ingestion_id, events: [...]}` (1 to 100).
 * JSON, also when sent as text/plain (what `navigator.sendBeacon` sends without a CORS preflight).
 */
export function parseEvents(
  body: Uint8Array,
  now: Date,
): { ok: true; ingestionId: string; events: IncomingEvent[] } | { ok: false; violations: Violation[] } {
  try {
    let parsed: unknown;
    try {
      parsed = JSON.parse(decoder.decode(body));
    } catch {
      fail('', 'json', 'the body must be a JSON object in UTF-8');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      fail('', 'type', 'must be an object');
    const input = parsed as Record<string, unknown>;
    const ingestionId = text(input.ingestion_id, '/ingestion_id', 64, true) as string;
    if (input.events === undefined) return { ok: true, ingestionId, events: [event(input, '', now)] };
    if (!Array.isArray(input.events) || input.events.length === 0 || input.events.length > MAX_BATCH) {
      fail('/events', 'maxItems', `must be an array of 1 to ${MAX_BATCH} events`);
    }
    return {
      ok: true,
      ingestionId,
      events: input.events.map((item, index) => event(item, `/events/${index}`, now)),
    };
  } catch (error) {
    if (error instanceof Invalid) return { ok: false, violations: [error.violation] };
    throw error;
  }
}
