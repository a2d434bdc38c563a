import { randomUUID } from 'node:crypto';
import type { ErrorCode } from '@agw/contracts';
import { isbot } from 'isbot';
import type { DomainHost, PublicRequest, PublicResponse } from '../domain.js';
import { runStatement } from '../sql.js';
import { AddressLimit } from './address-limit.js';
import { eventId } from './event-id.js';
import { type IncomingEvent, parseEvents, type Violation } from './event-input.js';
import { localDay } from './local-day.js';
import { type PropertyRow, selectPropertyByIngestionId } from './sql.js';
import { VisitorIds } from './visitor.js';
import type { EventRecord, EventWriter, StaleRecord } from './writer.js';

/** Anyone may send (pages of any site carry the public id) and read the answer's counts. */
const ALLOW_ANY_ORIGIN = { 'access-control-allow-origin': '*' } as const;

/**
 * The preflight's answer (a page's `fetch` with a JSON content type asks first). Methods, headers and
 * max-age are read by browsers only from a preflight, so the POST's answers carry only the origin: every
 * header is parsed by each sender, on a path hit by every page view.
 */
export const PREFLIGHT_HEADERS = {
  ...ALLOW_ANY_ORIGIN,
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'content-type',
  'access-control-max-age': '86400',
} as const;

const PROPERTY_TTL_MS = 30_000;
/** User agents whose bot verdict is remembered (a site's visitors share a few hundred of them). */
const MAX_REMEMBERED_AGENTS = 2000;

const HEADERS: Readonly<Record<string, string>> = { 'cache-control': 'no-store', ...ALLOW_ANY_ORIGIN };

function answer(status: number, body: unknown): PublicResponse {
  return { status, headers: HEADERS, body };
}

/** Seconds a sender waits when its property's share of the backlog is full (the writer catches up). */
const BACKLOG_RETRY_SECONDS = 5;

/**
 * A refusal, rendered by the gateway in the contracts' error envelope (host.error). Its audit_id is the
 * request id: no audit row is written for it (a flood of refused events would become a flood of rows).
 * The answer keeps the CORS header, so the page's script can read why.
 */
function refusal(
  host: DomainHost,
  code: ErrorCode,
  message: string,
  options: { retryAfterSeconds?: number; violations?: readonly Violation[]; hint?: string } = {},
): PublicResponse {
  const { retryAfterSeconds, violations, hint } = options;
  return host.error(code, {
    message,
    headers: HEADERS,
    ...(hint === undefined ? {} : { hint }),
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    ...(violations === undefined
      ? {}
      : {
          schemaPointer: violations[0]?.schema_pointer,
          details: violations.map((violation) => ({ ...violation })),
        }),
  });
}

/**
 * Where the request says it was sent from: its `Origin`, else its `Referer`. A browser sends one of
 * them with every event; a server sends neither. `Origin: null` is a browser hiding its page (a
 * sandboxed frame, `Referrer-Policy: no-referrer`).
 */
type Sender = 'allowed' | 'foreign' | 'hidden' | 'unknown';

function senderOf(headers: PublicRequest['headers'], domains: readonly string[]): Sender {
  const origin = headers.origin ?? headers.referer;
  if (origin === undefined || origin === '') return 'unknown';
  if (origin === 'null') return 'hidden';
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return 'foreign';
  }
  return hostAllowed(url, domains) ? 'allowed' : 'foreign';
}

/** Whether a page's host belongs to the property: one of its domains or a subdomain of one. */
export function hostAllowed(url: URL, domains: readonly string[]): boolean {
  const hostname = url.hostname.toLowerCase();
  return domains.some((domain) => {
    const wanted = domain.toLowerCase();
    if (wanted.includes(':')) return url.host.toLowerCase() === wanted;
    return hostname === wanted || hostname.endsWith(`.${wanted}`);
  });
}

/**
 * POST /a/events: counts the events against the sender's address, checks the body, finds the property
 * by its public id (cached for 30 s), drops events of bots and from outside the property's domains,
 * turns each event into a row without the client address, and hands the rows to the writer, which
 * commits them in batches after the 202 (see EventWriter) and refuses a property more than its share
 * of the backlog. Nothing on this path waits for the database but the first sight of a property or of
 * the day's salt.
 *
 * Every event, with or without a `url`, passes the same two checks (docs/analytics.md): the user agent
 * must not be a bot's (a server forwards its visitor's, as it would to any analytics service), and
 * the page it names and the `Origin`/`Referer` the request carries must be the property's. An event
 * without a `url` from a browser hiding its page (`Origin: null`) is dropped: nothing vouches for it.
 */
export function ingestion(host: DomainHost, writer: EventWriter, eventsPerMinute: number) {
  const visitors = new VisitorIds(host.sql);
  const properties = new Map<string, { row: PropertyRow | undefined; until: number }>();
  const limit = new AddressLimit(eventsPerMinute);
  const bots = new Map<string, boolean>();

  // isbot runs one large regular expression; the same few user agents send most page views.
  function isBot(userAgent: string): boolean {
    let verdict = bots.get(userAgent);
    if (verdict === undefined) {
      verdict = userAgent === '' || isbot(userAgent);
      if (bots.size >= MAX_REMEMBERED_AGENTS) bots.clear();
      bots.set(userAgent, verdict);
    }
    return verdict;
  }

  /** The property of `ingestionId` from the cache (`{row: undefined}`: known to be missing), else undefined. */
  function cachedProperty(ingestionId: string, now: number): { row: PropertyRow | undefined } | undefined {
    const cached = properties.get(ingestionId);
    return cached !== undefined && cached.until > now ? cached : undefined;
  }

  async function propertyOf(ingestionId: string): Promise<PropertyRow | undefined> {
    const { rows } = await runStatement<PropertyRow>(host.sql, selectPropertyByIngestionId, [ingestionId]);
    if (properties.size > 10_000) properties.clear();
    properties.set(ingestionId, { row: rows[0], until: Date.now() + PROPERTY_TTL_MS });
    return rows[0];
  }

  function row(
    property: PropertyRow,
    event: IncomingEvent,
    request: PublicRequest,
    received: number,
    day: string,
    salt: string,
  ): EventRecord {
    const userAgent = request.headers['user-agent'] ?? '';
    const referrer =
      event.referrer && !hostAllowed(event.referrer, property.domains) ? event.referrer.hostname : undefined;
    const occurred = event.occurredAt.getTime();
    return {
      i: eventId(received),
      p: property.id,
      t: occurred === received ? undefined : occurred,
      r: received,
      n: event.name,
      c: event.category ?? undefined,
      s: event.source ?? undefined,
      u: event.outcome ?? undefined,
      h: event.url?.hostname,
      a: event.url?.pathname,
      f: referrer,
      v: event.url ? visitors.id(salt, property.id, request.clientAddress, userAgent, day) : undefined,
      x: event.properties,
    };
  }

  return async function handle(request: PublicRequest): Promise<PublicResponse> {
    const now = host.clock.now();
    const tooMany = (retryAfterSeconds: number) =>
      refusal(host, 'rate_limited', 'Too many events from this address; send them again later.', {
        retryAfterSeconds,
      });
    // One event counted before the body is read, so a flood past the limit costs no parse.
    const waitFirst = limit.take(request.clientAddress, now.getTime(), 1);
    if (waitFirst > 0) return tooMany(waitFirst);
    const parsed = parseEvents(request.body, now);
    if (!parsed.ok) {
      const [first] = parsed.violations;
      return refusal(host, 'validation_failed', `${first?.schema_pointer || 'body'} ${first?.message}`, {
        violations: parsed.violations,
      });
    }
    if (parsed.events.length > 1) {
      const wait = limit.take(request.clientAddress, now.getTime(), parsed.events.length - 1);
      if (wait > 0) return tooMany(wait);
    }
    // Nothing here awaits once the property and the day's salt are known: no promise per page view.
    const cached = cachedProperty(parsed.ingestionId, now.getTime());
    const property = cached !== undefined ? cached.row : await propertyOf(parsed.ingestionId);
    if (property === undefined) {
      return refusal(host, 'not_found', 'No active analytics property has this ingestion_id.');
    }
    const userAgent = request.headers['user-agent'] ?? '';
    const bot = isBot(userAgent);
    const sender = senderOf(request.headers, property.domains);
    const dropped = { bot: 0, domain: 0 };
    const rows: EventRecord[] = [];
    const stale: StaleRecord[] = [];
    const today = localDay(property.timezone, now);
    const received = now.getTime();
    // Only a page view has a visitor (and needs the day's salt).
    const pages = !bot && sender !== 'foreign' && parsed.events.some((event) => event.url !== null);
    const salt = pages ? (visitors.readySalt(now) ?? (await visitors.salt(now))) : '';
    for (const event of parsed.events) {
      if (bot) dropped.bot += 1;
      else if (
        sender === 'foreign' ||
        (event.url === null ? sender === 'hidden' : !hostAllowed(event.url, property.domains))
      )
        dropped.domain += 1;
      else {
        const day = event.occurredAt === now ? today : localDay(property.timezone, event.occurredAt);
        rows.push(row(property, event, request, received, day, salt));
        // An event of an earlier day: that day's rollup (if made already) is made again.
        if (day < today) {
          stale.push({
            id: randomUUID(),
            organization_id: property.organization_id,
            property_id: property.id,
            day,
          });
        }
      }
    }
    if (rows.length > 0 && !writer.accept(property.organization_id, rows, stale)) {
      return refusal(
        host,
        'dependency_unavailable',
        'Too many events of this organization are waiting to be written; send them again later.',
        {
          retryAfterSeconds: BACKLOG_RETRY_SECONDS,
          // The table's hint speaks of idempotency keys, which events do not have.
          hint: 'Send the same events again after retry_after_seconds; other properties are not held up.',
        },
      );
    }
    return answer(202, { accepted: rows.length, dropped });
  };
}
