// Every route /openapi.json lists answers its errors in the contracts' closed error envelope: the
// gateway's own routes, MCP, jobs and every domain's public routes (booking pages, event ingestion, the
// tracker script) alike (issue 27, finding 1: calendar and analytics rendered their own). Each route is
// driven into the error a client meets first (no key, a malformed body, an unknown id) and into a 405
// (a method the path does not have); each body is validated with ajv against the contracts' schema, and
// its code, status and `retryable` must be the contracts' table's. A page for people (the booking page)
// may answer an HTML page where its operation documents one.

import { randomUUID } from 'node:crypto';
import { createValidator, errorCodes, isErrorCode } from '@agw/contracts';
import { describe, expect, it } from 'vitest';
import { approvedInstallation, useGateway } from './helpers/gateway.js';

const gateway = useGateway();
const validator = createValidator();

interface Operation {
  readonly responses?: Record<string, { content?: Record<string, unknown> }>;
  readonly requestBody?: unknown;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

/** A concrete path for a templated one: unknown ids everywhere (a slug or a secret nobody issued). */
function concrete(template: string): string {
  return template.replace(/\{([^}]+)\}/g, (_match, name: string) =>
    name === 'slug' || name === 'secret' ? `no-such-${name}` : randomUUID(),
  );
}

/** Fails unless `response` is an error in the contracts' envelope (or a page its operation documents). */
async function expectErrorEnvelope(
  response: Response,
  label: string,
  operation: Operation | undefined,
): Promise<string> {
  expect(response.status, label).toBeGreaterThanOrEqual(400);
  const type = response.headers.get('content-type') ?? '';
  const text = await response.text();
  if (type.startsWith('text/html')) {
    const documented = Object.values(operation?.responses ?? {}).some(
      (answer) => 'text/html' in (answer.content ?? {}),
    );
    expect(documented, `${label}: an HTML error from a route that documents no page`).toBe(true);
    return 'page';
  }
  expect(type, label).toMatch(/^application\/json/);
  const body = JSON.parse(text) as {
    error: { code: string; retryable: boolean; retry_after_seconds?: number };
  };
  expect(validator.validate('ErrorEnvelope', body), `${label}: ${text}`).toEqual({ valid: true });
  const { code } = body.error;
  expect(isErrorCode(code), `${label}: ${code} is not in the contracts' table`).toBe(true);
  if (isErrorCode(code)) {
    expect(response.status, `${label}: ${code}`).toBe(errorCodes[code].status);
    expect(body.error.retryable, `${label}: ${code}`).toBe(errorCodes[code].retryable);
  }
  if (response.headers.has('retry-after')) {
    expect(String(body.error.retry_after_seconds), `${label}: Retry-After and the body differ`).toBe(
      response.headers.get('retry-after'),
    );
  }
  return code;
}

describe('every route of /openapi.json answers errors in the contracts envelope', () => {
  it('with its own error and with a method the path does not have', async () => {
    const document = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as {
      paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
    };
    const paths = Object.entries(document.paths);
    // The domains' public routes are listed beside the gateway's own.
    expect(paths.map(([path]) => path)).toEqual(
      expect.arrayContaining(['/a/events', '/a/script.js', '/book/{slug}', '/book/{slug}/{secret}/bookings']),
    );
    const seen: string[] = [];
    for (const [template, item] of paths) {
      const path = concrete(template);
      for (const method of METHODS) {
        const operation = item[method];
        if (operation === undefined || method === 'head' || method === 'options') continue;
        const label = `${method.toUpperCase()} ${template}`;
        const response = await fetch(`${gateway.url}${path}`, {
          method: method.toUpperCase(),
          ...(method === 'get' || method === 'delete'
            ? {}
            : { headers: { 'content-type': 'application/json' }, body: '{"unclosed": ' }),
        });
        // A route that answers anyone (health, discovery, the tracker script) has no error for this request.
        if (response.status < 400) {
          await response.arrayBuffer();
          continue;
        }
        seen.push(`${label} ${await expectErrorEnvelope(response, label, operation)}`);
      }
      const wrong = ['PATCH', 'DELETE', 'PUT'].find(
        (method) => item[method.toLowerCase() as 'patch'] === undefined,
      );
      const label = `${wrong} ${template}`;
      const response = await fetch(`${gateway.url}${path}`, { method: wrong });
      expect(await expectErrorEnvelope(response, label, undefined), label).toBe('method_not_allowed');
      expect(response.headers.get('allow'), label).toBeTruthy();
    }
    // The domains' own refusals are among them (not only the gateway's 405s).
    expect(seen).toEqual(
      expect.arrayContaining([
        'POST /a/events validation_failed',
        'GET /book/{slug}/slots not_found',
        'POST /book/{slug}/bookings bad_request',
        'GET /book/{slug} page',
      ]),
    );
  });

  it("a booking refused for the booking API's own reasons (slot taken) is in the table too", async () => {
    const { key } = await approvedInstallation(gateway);
    const run = async (id: string, params: Record<string, unknown>) => {
      const answer = await gateway.client.post(
        '/mcp/invoke',
        { id, params, idempotency_key: `env-${randomUUID()}` },
        { key, idem: null },
      );
      if (answer.status !== 200) throw new Error(`${id}: ${answer.status} ${answer.text}`);
      return answer.json.result;
    };
    const { calendar } = await run('calendar.calendar.manage', {
      operation: 'create',
      name: 'Dana Berg',
      timezone: 'UTC',
    });
    await run('calendar.availability.manage', {
      operation: 'replace',
      calendar_id: calendar.id,
      rules: [0, 1, 2, 3, 4, 5, 6].map((day) => ({
        day_of_week: day,
        start_time: '00:00',
        end_time: '23:30',
      })),
    });
    const { event_type } = await run('calendar.event_type.manage', {
      operation: 'create',
      calendar_id: calendar.id,
      name: 'Call',
      duration_minutes: 30,
    });
    const created = await run('calendar.booking_link.manage', {
      operation: 'create',
      calendar_id: calendar.id,
      title: 'Intro call',
      allowed_event_type_ids: [event_type.id],
      min_notice_minutes: 0,
      access_mode: 'public',
      one_time_use: false,
    });
    const path = created.url_path as string;
    const { slots } = (await (await fetch(`${gateway.url}${path}/slots`)).json()) as {
      slots: { start: string }[];
    };
    const book = (email: string) =>
      fetch(`${gateway.url}${path}/bookings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ start: slots[0]?.start, name: 'A', email }),
      });
    expect((await book('a@example.com')).status).toBe(201);
    const twin = await book('b@example.com');
    expect(await expectErrorEnvelope(twin, 'POST /book/{slug}/bookings', undefined)).toBe('slot_taken');
  });

  it("a domain's rate limit names the wait in the body and in Retry-After alike", async () => {
    // The booking form's attempts: 10 a minute per address (DEFAULT_BOOKING_RATE_LIMITS).
    let last: Response | undefined;
    for (let attempt = 0; attempt < 11; attempt += 1) {
      last = await fetch(`${gateway.url}/book/no-such-slug/bookings`, { method: 'POST', body: 'x' });
      if (last.status === 429) break;
      await last.arrayBuffer();
    }
    const response = last as Response;
    expect(await expectErrorEnvelope(response, 'POST /book/{slug}/bookings', undefined)).toBe('rate_limited');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('an unknown path, another case or a trailing slash of a public route answers like the gateway', async () => {
    for (const path of ['/no-such-endpoint', '/a/events/nope', '/book']) {
      const response = await fetch(`${gateway.url}${path}`, { method: 'POST', body: '{}' });
      expect(await expectErrorEnvelope(response, `POST ${path}`, undefined)).toBe('not_found');
    }
  });
});
