// Issue 28, finding 8: every operation of /openapi.json that takes a body says what the body is — the
// gateway's own routes and every domain's public routes (POST /a/events had none). The event
// ingestion's schema is checked against what POST /a/events accepts and refuses, body by body.
import { createValidator } from '@agw/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { billingClient } from './helpers/billing.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';

const gateway = useGateway();
const validator = createValidator();

interface Operation {
  readonly requestBody?: { content?: Record<string, { schema?: Record<string, unknown> }> };
}
let paths: Record<string, Record<string, Operation>>;

beforeAll(async () => {
  paths = (await (await fetch(`${gateway.url}/openapi.json`)).json()).paths;
});

describe('/openapi.json request bodies', () => {
  it('every POST, PUT and PATCH operation has a request body with a schema', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries(paths)) {
      for (const method of ['post', 'put', 'patch']) {
        const operation = item[method];
        if (operation === undefined) continue;
        const media = Object.values(operation.requestBody?.content ?? {});
        if (media.length === 0 || media.some((entry) => entry.schema === undefined)) {
          missing.push(`${method.toUpperCase()} ${path}`);
        }
      }
    }
    expect(Object.keys(paths)).toContain('/a/events');
    expect(missing).toEqual([]);
  });

  it('the booking page posts its form body as documented, beside JSON', () => {
    const booking = Object.entries(paths).find(([path]) => /^\/book\/\{[^}]+\}\/bookings$/.test(path));
    expect(booking?.[0]).toBeDefined();
    const content = booking?.[1].post?.requestBody?.content ?? {};
    expect(Object.keys(content).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    expect(content['application/x-www-form-urlencoded']?.schema).toMatchObject({
      required: ['start', 'name', 'email'],
    });
  });

  it('POST /a/events documents one event and a batch, as the ingestion reads them', async () => {
    const schema = paths['/a/events']?.post?.requestBody?.content?.['application/json']?.schema ?? {};
    const valid = (body: unknown) =>
      validator.validate(schema as Parameters<typeof validator.validate>[0], body).valid;
    const { key } = await approvedInstallation(gateway);
    const agent = billingClient(gateway, key);
    const created = await agent.run('analytics.property.manage', {
      operation: 'create',
      name: 'Site',
      domains: ['example.com'],
    });
    const id = (created.property as { ingestion_id: string }).ingestion_id;
    const anHourAgo = new Date(Date.now() - 3_600_000).toISOString();
    const bodies: [body: unknown, documented: boolean][] = [
      [{ ingestion_id: id, name: 'pageview', url: 'https://example.com/' }, true],
      [
        {
          ingestion_id: id,
          events: [
            { name: 'signup', category: 'funnel', properties: { plan: 'pro' } },
            { name: 'pageview', occurred_at: anHourAgo },
          ],
        },
        true,
      ],
      [{ name: 'pageview' }, false],
      [{ ingestion_id: id }, false],
      [{ ingestion_id: id, events: [] }, false],
    ];
    for (const [body, documented] of bodies) {
      expect(valid(body), JSON.stringify(body)).toBe(documented);
      // What the ingestion answers the same body: accepted exactly when the schema says it is valid.
      const answer = await fetch(`${gateway.url}/a/events`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
        },
        body: JSON.stringify(body),
      });
      expect(answer.status, `${JSON.stringify(body)}: ${await answer.text()}`).toBe(documented ? 202 : 400);
    }
  });
});
