// Issue 28, finding 8: every operation of /openapi.json that takes a body says what the body is — the
// gateway's own routes and every domain's public routes (POST /a/events had none). The event
// ingestion's schema is checked against what POST /a/events accepts and refuses.
import { createValidator } from '@agw/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway } from './helpers/gateway.js';

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

  it('POST /a/events documents one event and a batch, as the ingestion reads them', () => {
    const schema = paths['/a/events']?.post?.requestBody?.content?.['application/json']?.schema ?? {};
    const valid = (body: unknown) =>
      validator.validate(schema as Parameters<typeof validator.validate>[0], body).valid;
    expect(valid({ ingestion_id: 'pub_123', name: 'pageview', url: 'https://example.com/' })).toBe(true);
    expect(
      valid({
        ingestion_id: 'pub_123',
        events: [
          { name: 'signup', category: 'funnel', properties: { plan: 'pro' } },
          { name: 'pageview', occurred_at: '2026-01-01T10:00:00Z' },
        ],
      }),
    ).toBe(true);
    expect(valid({ name: 'pageview' })).toBe(false);
    expect(valid({ ingestion_id: 'pub_123' })).toBe(false);
    expect(valid({ ingestion_id: 'pub_123', events: [] })).toBe(false);
  });
});
