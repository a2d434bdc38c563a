import fc from 'fast-check';
import { deeplyNested, EDGE_TIMESTAMPS, NASTY_STRINGS } from './fuzz-values.js';

/** The public booking links and analytics property the public-route cases aim at (set in beforeAll). */
export interface PublicTargets {
  /** `/book/<slug>` of a public link. */
  publicPath: string;
  /** `/book/<slug>/<secret>` of a secret link. */
  secretPath: string;
  /** An event type the links offer. */
  eventTypeId: string;
  ingestionId: string;
}

const nasty = fc.constantFrom(...NASTY_STRINGS);
/** One of `values()`, read when a value is drawn: the targets are only known once the gateway runs. */
const live = (values: () => readonly string[]) =>
  fc.nat(1000).map((index) => {
    const all = values();
    return all[index % all.length] as string;
  });
const wrongSecret = (targets: PublicTargets) =>
  `${targets.secretPath.slice(0, targets.secretPath.lastIndexOf('/'))}/wrong-secret`;
const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: nasty },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
);

/** Instants for `from`, `to` and a booking's `start`: real ones, the calendar's edges, far ranges, garbage. */
const instant = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .date({ min: new Date('2020-01-01'), max: new Date('2035-12-31'), noInvalidDate: true })
      .map((date) => date.toISOString()),
  },
  { weight: 2, arbitrary: fc.constantFrom(...EDGE_TIMESTAMPS) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '2026-02-30T10:00:00Z',
      '2026-01-01',
      '2026-01-01T25:00:00Z',
      '+275760-09-13T00:00:00.000Z',
      '-000001-01-01T00:00:00Z',
      'now',
      '',
      '1e308',
    ),
  },
  { weight: 1, arbitrary: text },
);
const zone = fc.constantFrom(
  'Europe/Berlin',
  'UTC',
  'Pacific/Kiritimati',
  'Mars/Olympus',
  '',
  'Etc/GMT+12',
  '../x',
);

/** Paths under /book/…: the links' pages and JSON API, wrong secrets, unknown slugs and sub-paths. */
export function bookingPath(targets: PublicTargets): fc.Arbitrary<string> {
  const query = fc
    .record(
      {
        from: instant,
        to: instant,
        tz: zone,
        event_type_id: fc.oneof(
          live(() => [targets.eventTypeId]),
          fc.uuid(),
        ),
      },
      { requiredKeys: [] },
    )
    .map((fields) => {
      const search = new URLSearchParams(fields as Record<string, string>).toString();
      return search === '' ? '' : `?${search}`;
    });
  const base = fc.oneof(
    { weight: 3, arbitrary: live(() => [targets.publicPath]) },
    { weight: 3, arbitrary: live(() => [targets.secretPath]) },
    {
      weight: 1,
      arbitrary: live(() => [
        wrongSecret(targets),
        '/book/no-such-link',
        '/book/no-such-link/whatever',
        '/book/',
        '/book//x',
        `${targets.publicPath}/%00`,
        targets.publicPath.toUpperCase(),
      ]),
    },
  );
  return fc
    .tuple(base, fc.constantFrom('', '', '/slots', '/slots', '/unknown', '/'), query)
    .map(([path, sub, search]) => `${path}${sub}${search}`);
}

/** POST paths of the bookings API (public and secret link, wrong secret, unknown slug). */
export function bookingsPath(targets: PublicTargets): fc.Arbitrary<string> {
  return live(() => [
    `${targets.publicPath}/bookings`,
    `${targets.publicPath}/bookings`,
    `${targets.secretPath}/bookings`,
    `${wrongSecret(targets)}/bookings`,
    '/book/no-such-link/bookings',
    targets.publicPath,
  ]);
}

/** Booking bodies: plausible ones with names, addresses, notes and starts at the edges. */
export function bookingBody(targets: PublicTargets): fc.Arbitrary<unknown> {
  return fc.record(
    {
      start: instant,
      event_type_id: fc.oneof(
        live(() => [targets.eventTypeId]),
        fc.uuid(),
        text,
      ),
      name: fc.oneof({ weight: 2, arbitrary: fc.constant('Ada Booker') }, { weight: 3, arbitrary: text }),
      email: fc.oneof(
        { weight: 2, arbitrary: fc.emailAddress() },
        {
          weight: 1,
          arbitrary: fc.constantFrom('a@b', 'x@example.org\r\nBcc: y@example.org', '"a b"@example.org'),
        },
      ),
      note: fc.oneof(text, fc.string({ maxLength: 3000 })),
      timezone: zone,
      context: fc.oneof(fc.dictionary(fc.string({ maxLength: 8 }), text, { maxKeys: 3 }), deeplyNested),
    },
    { requiredKeys: ['start', 'name', 'email'] },
  );
}

/** POST /a/events bodies: one event or a batch, with URLs, names and properties nested and nasty. */
export function eventsBody(targets: PublicTargets): fc.Arbitrary<unknown> {
  const properties = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.dictionary(fc.string({ maxLength: 10 }), fc.oneof(text, fc.integer()), { maxKeys: 5 }),
    },
    { weight: 1, arbitrary: deeplyNested },
    { weight: 1, arbitrary: fc.constantFrom(null, [], 'x', 1) },
  );
  const event = fc.record(
    {
      name: fc.oneof(fc.constantFrom('pageview', 'signup'), text),
      url: fc.oneof(fc.constant('http://localhost/shop'), fc.webUrl(), text),
      referrer: fc.oneof(fc.webUrl(), text),
      outcome: fc.oneof(fc.constantFrom('success', 'error'), text),
      properties,
      occurred_at: instant,
    },
    { requiredKeys: ['name'] },
  );
  const id = fc.oneof(
    { weight: 4, arbitrary: live(() => [targets.ingestionId]) },
    { weight: 1, arbitrary: text },
  );
  return fc.oneof(
    fc.tuple(id, event).map(([ingestion_id, one]) => ({ ingestion_id, ...one })),
    fc
      .tuple(id, fc.array(event, { maxLength: 101 }))
      .map(([ingestion_id, events]) => ({ ingestion_id, events })),
  );
}
