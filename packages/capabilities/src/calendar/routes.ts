import { randomBytes } from 'node:crypto';
import type { DomainHost, PublicRequest, PublicResponse, PublicRoute } from '../domain.js';
import { html, invalidField, json, refusalAnswer } from './answers.js';
import {
  type BookingRefusal,
  type BookingRequest,
  bookOnLink,
  linkSlots,
  NO_ORGANIZATION,
  type OpenLink,
  openLink,
  ownerOfSlug,
  pickEventType,
  SlotTakenError,
} from './booking-page-service.js';
import type { BookingRow } from './bookings.js';
import { type BookingCaps, DEFAULT_BOOKING_CAPS } from './caps.js';
import { checkEmailText } from './form.js';
import { ICS_DOMAIN } from './ics.js';
import { type Locale, TEXT } from './messages.js';
import { renderBookingPage, renderConfirmation, renderProblem, renderUnavailable } from './page.js';
import { bookOpenApi, pageOpenApi, slotsOpenApi } from './routes-openapi.js';
import { isTimeZone } from './slots.js';
import { checkSlotRange, timeInReach } from './time-range.js';

/** Per client address and minute: page and slot reads, and booking attempts (a person needs a few). */
export interface BookingRateLimits {
  readonly readsPerMinute: number;
  readonly bookingsPerMinute: number;
}
export const DEFAULT_BOOKING_RATE_LIMITS: BookingRateLimits = { readsPerMinute: 120, bookingsPerMinute: 10 };

const ZONES: readonly string[] = Intl.supportedValuesOf('timeZone');
const DAY_MS = 86_400_000;

type Answer = PublicResponse;

/** The fields of the page's booking form, given back to a visitor whose booking was refused. */
const FORM_FIELDS = ['start', 'name', 'email', 'phone', 'note', 'timezone', 'event_type_id'] as const;

/**
 * What the form starts with: a secret link's recipient (the link was sent to them, so the page may
 * greet them). A public link's page is anyone's: it never shows whom the link was made for.
 */
function recipientOf(open: OpenLink): Record<string, string> {
  if (open.link.access_mode !== 'secret' || !open.link.recipient_email) return {};
  return { email: open.link.recipient_email, name: open.link.recipient_name ?? '' };
}

function visitorLocale(request: PublicRequest): Locale {
  return /^de\b/i.test(request.headers['accept-language'] ?? '') ? 'de' : 'en';
}

function pathOf(slug: string, secret: string | undefined): string {
  return secret ? `/book/${slug}/${secret}` : `/book/${slug}`;
}

/**
 * A form post from another site is refused. A browser says where a POST comes from: Sec-Fetch-Site
 * (every current browser) or, failing that, Origin, which must name this gateway. A request with
 * neither is not a browser's, so not a forgery of one. JSON posts need `application/json`, which another
 * site cannot send without a CORS preflight this gateway never grants.
 */
function crossSite(request: PublicRequest, publicBaseUrl: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site) return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.origin;
  if (!origin) return false;
  const own = new Set([new URL(publicBaseUrl).host, request.headers.host]);
  try {
    return !own.has(new URL(origin).host);
  } catch {
    return true;
  }
}

/** The calendar domain's public routes: the booking page and its JSON API. */
export function bookingRoutes(
  host: DomainHost,
  limits = DEFAULT_BOOKING_RATE_LIMITS,
  caps: BookingCaps = DEFAULT_BOOKING_CAPS,
): PublicRoute[] {
  const limited = async (
    request: PublicRequest,
    bucket: string,
    limit: number,
  ): Promise<Answer | undefined> => {
    const verdict = await host.rateLimit(`calendar.${bucket}:${request.clientAddress}`, limit, 60);
    if (verdict.allowed) return undefined;
    return host.error('rate_limited', {
      message: 'Too many requests; try again shortly.',
      retryAfterSeconds: verdict.retryAfterSeconds,
    });
  };

  /**
   * Runs `fn` in the link's tenant when the link is open; undefined when it is not (any reason). An
   * unknown slug runs the same transaction and link query (in an organization that does not exist) and
   * hashes a presented secret like a known one: the answer's timing does not tell which slugs exist.
   */
  const withLink = async <T>(
    slug: string,
    secret: string | undefined,
    fn: (
      open: OpenLink,
      sql: Parameters<Parameters<DomainHost['asTenant']>[1]>[0],
      mail: Parameters<Parameters<DomainHost['asTenant']>[1]>[1],
      ownerEmail: string | null,
    ) => Promise<T>,
  ): Promise<T | undefined> => {
    const owner = await ownerOfSlug(host, slug);
    const organizationId = owner?.organizationId ?? NO_ORGANIZATION;
    return host.asTenant(organizationId, async (sql, mail) => {
      const open = await openLink(sql, organizationId, slug, secret, host.clock.now());
      return open && owner ? fn(open, sql, mail, owner.ownerEmail) : undefined;
    });
  };

  /**
   * The booking page. `refused` re-renders it after a refused form post: the visitor's own answers
   * back in the form, and the reason.
   */
  const page = async (
    request: PublicRequest,
    secret: string | undefined,
    refused?: { readonly values: Readonly<Record<string, string>>; readonly error: string },
  ): Promise<Answer> => {
    const nonce = randomBytes(16).toString('base64');
    const slug = request.params.slug as string;
    // The "later times" link's `from`: a time out of reach is a 400 page, before any link is looked up.
    const fromText = request.query.get('from');
    const from = fromText ? timeInReach(fromText, host.clock.now()) : undefined;
    if (fromText && !from) {
      const locale = visitorLocale(request);
      return html(400, renderProblem(locale, TEXT[locale].badTime, pathOf(slug, secret), nonce), nonce);
    }
    const rendered = await withLink(slug, secret, async (open, sql) => {
      const requestedZone = request.query.get('tz');
      const zone = requestedZone && isTimeZone(requestedZone) ? requestedZone : open.calendar.timezone;
      const type =
        pickEventType(open, request.query.get('type')) ?? (open.eventTypes[0] as OpenLink['eventTypes'][0]);
      const now = host.clock.now();
      const until = new Date(now.getTime() + open.link.booking_window_days * DAY_MS);
      const page = await linkSlots(sql, open, type, from ?? now, until, now);
      const last = page.slots.at(-1);
      return renderBookingPage(
        {
          locale: open.calendar.locale,
          title: open.link.title,
          intro: open.link.intro,
          organizer: open.calendar.name,
          path: pathOf(slug, secret),
          zone,
          zones: ZONES.includes(zone) ? ZONES : [zone, ...ZONES],
          eventTypes: open.eventTypes,
          eventType: type,
          slots: page.slots,
          nextFrom: page.more && last ? new Date(last.start.getTime() + 60_000).toISOString() : null,
          until: until.toISOString(),
          phoneRequired: open.link.phone_required,
          values: refused?.values ?? recipientOf(open),
          ...(refused ? { error: refused.error } : {}),
        },
        nonce,
      );
    });
    return rendered === undefined
      ? html(404, renderUnavailable(visitorLocale(request), nonce), nonce)
      : html(200, rendered, nonce);
  };

  const slots = async (request: PublicRequest, secret: string | undefined): Promise<Answer> => {
    const slug = request.params.slug as string;
    const zone = request.query.get('tz') ?? undefined;
    if (zone !== undefined && !isTimeZone(zone)) {
      return invalidField(host, '/query/tz', 'tz is not an IANA time zone.');
    }
    const range = checkSlotRange(request.query, host.clock.now());
    if ('parameter' in range) {
      return invalidField(host, `/query/${range.parameter}`, range.message);
    }
    const answer = await withLink(slug, secret, async (open, sql) => {
      const type = pickEventType(open, request.query.get('event_type_id'));
      if (!type) return 'no_type' as const;
      const now = host.clock.now();
      const from = range.from ?? now;
      const to = range.to ?? new Date(now.getTime() + open.link.booking_window_days * DAY_MS);
      const found = await linkSlots(sql, open, type, from, to, now);
      const shown = zone ?? open.calendar.timezone;
      const format = new Intl.DateTimeFormat('en-CA', {
        timeZone: shown,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      });
      const last = found.slots.at(-1);
      return {
        timezone: shown,
        event_type: { id: type.id || null, name: type.name, duration_minutes: type.duration_minutes },
        event_types: open.eventTypes.map((t) => ({
          id: t.id || null,
          name: t.name,
          duration_minutes: t.duration_minutes,
        })),
        slots: found.slots.map((slot) => {
          const [date, time] = format.format(slot.start).split(', ');
          return {
            start: slot.start.toISOString(),
            end: slot.end.toISOString(),
            local_date: date,
            local_time: time,
          };
        }),
        more: found.more,
        next_from: found.more && last ? new Date(last.start.getTime() + 60_000).toISOString() : null,
      };
    });
    if (answer === undefined) return host.error('not_found', { message: 'No such booking link.' });
    if (answer === 'no_type') {
      return invalidField(host, '/query/event_type_id', 'Not an event type of this link.');
    }
    return json(200, answer);
  };

  const book = async (request: PublicRequest, secret: string | undefined): Promise<Answer> => {
    const slug = request.params.slug as string;
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    const isForm = type === 'application/x-www-form-urlencoded';
    const nonce = randomBytes(16).toString('base64');
    if (!isForm && type !== 'application/json') {
      return host.error('unsupported_media_type', { message: 'Send application/json.' });
    }
    if (isForm && crossSite(request, host.publicBaseUrl)) {
      return host.error('forbidden', { message: 'A booking form must be sent from its own page.' });
    }
    const text = new TextDecoder().decode(request.body);
    let fields: Record<string, unknown>;
    try {
      fields = isForm
        ? Object.fromEntries(new URLSearchParams(text))
        : (JSON.parse(text) as Record<string, unknown>);
      if (typeof fields !== 'object' || fields === null || Array.isArray(fields))
        throw new Error('not an object');
    } catch {
      return host.error('bad_request', { message: 'The body is not a JSON object.' });
    }
    const parsed = checkEmailText(fields, host.clock.now());
    const id = host.ids.uuid();
    let outcome:
      | { locale: Locale; result: BookingRow | BookingRefusal; page?: () => Promise<Answer> }
      | undefined;
    try {
      outcome = await withLink(slug, secret, async (open, sql, mail, ownerEmail) => {
        const locale = open.calendar.locale;
        if ('field' in parsed) return { locale, result: { kind: 'invalid', ...parsed } as BookingRefusal };
        if (open.link.phone_required && !parsed.phone) {
          return {
            locale,
            result: {
              kind: 'invalid',
              field: 'phone',
              message: 'phone is required by this link.',
            } as BookingRefusal,
          };
        }
        const bookingRequest: BookingRequest = {
          ...parsed,
          timezone: parsed.timezone ?? open.calendar.timezone,
        };
        const result = await bookOnLink(sql, mail, open, bookingRequest, {
          now: host.clock.now(),
          id,
          organizerEmail: open.calendar.notification_email ?? ownerEmail,
          icsDomain: ICS_DOMAIN,
          caps,
        });
        return { locale, result };
      });
    } catch (error) {
      if (!(error instanceof SlotTakenError)) throw error;
      outcome = { locale: visitorLocale(request), result: { kind: 'slot_taken' } };
    }
    if (outcome === undefined) {
      return isForm
        ? html(404, renderUnavailable(visitorLocale(request), nonce), nonce)
        : host.error('not_found', { message: 'No such booking link.' });
    }
    const { locale, result } = outcome;
    if ('id' in result) {
      if (isForm) return html(201, renderConfirmation(locale, result, nonce), nonce);
      return json(201, {
        booking: {
          id: result.id,
          status: result.status,
          title: result.title,
          start: result.start_at.toISOString(),
          end: result.end_at.toISOString(),
          timezone: result.booker_timezone,
        },
      });
    }
    const answer = refusalAnswer(host, result, TEXT[locale]);
    if (isForm) {
      // Back to the page with the visitor's answers and the reason (a gone link shows the plain 404 page).
      if (result.kind === 'gone') return html(404, renderUnavailable(locale, nonce), nonce);
      const values = Object.fromEntries(
        FORM_FIELDS.map((name) => [name, typeof fields[name] === 'string' ? fields[name] : '']),
      );
      const again = await page(
        {
          ...request,
          query: new URLSearchParams({ tz: values.timezone ?? '', type: values.event_type_id ?? '' }),
        },
        secret,
        { values, error: answer.reason },
      );
      if (again.status !== 200) return again;
      // The page is the answer, not the envelope: a wait still goes in Retry-After.
      const wait = answer.error?.retryAfterSeconds;
      const retryAfter: Record<string, string> =
        wait === undefined ? {} : { 'retry-after': String(Math.ceil(wait)) };
      return {
        ...again,
        status: answer.status,
        headers: { ...again.headers, ...answer.headers, ...retryAfter },
      };
    }
    return answer;
  };

  const readRoute = (
    path: string,
    run: (request: PublicRequest) => Promise<Answer>,
    openapi: Record<string, unknown>,
  ): PublicRoute => ({
    method: 'GET',
    path,
    openapi,
    handle: async (request) => (await limited(request, 'read', limits.readsPerMinute)) ?? run(request),
  });
  const bookRoute = (path: string, secret: (request: PublicRequest) => string | undefined): PublicRoute => ({
    method: 'POST',
    path,
    bodyLimitBytes: 16 * 1024,
    openapi: bookOpenApi(path.includes(':secret')),
    handle: async (request) =>
      (await limited(request, 'book', limits.bookingsPerMinute)) ?? book(request, secret(request)),
  });
  const secretOf = (request: PublicRequest) => request.params.secret;
  return [
    readRoute('/book/:slug', (request) => page(request, undefined), pageOpenApi(false)),
    // Before `/book/:slug/:secret`: the first matching route answers, and a secret is never `slots`.
    readRoute('/book/:slug/slots', (request) => slots(request, undefined), slotsOpenApi(false)),
    bookRoute('/book/:slug/bookings', () => undefined),
    readRoute('/book/:slug/:secret', (request) => page(request, secretOf(request)), pageOpenApi(true)),
    readRoute(
      '/book/:slug/:secret/slots',
      (request) => slots(request, secretOf(request)),
      slotsOpenApi(true),
    ),
    bookRoute('/book/:slug/:secret/bookings', secretOf),
  ];
}
