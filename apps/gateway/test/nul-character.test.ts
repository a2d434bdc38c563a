// Regression (found by tests/reliability/fuzz.test.ts): a JSON string holding U+0000 — valid JSON as
// `\u0000`, but not storable in PostgreSQL text/jsonb — was a 500 on every route that stores a string
// (/register, /admin/mail-suppressions, /admin/operator-keys, ...). It is a 400 validation_failed now,
// pointing at the member, and nothing is stored.
import { describe, expect, it } from 'vitest';
import { adminFetch } from './helpers/admin-fixtures.js';
import { useGateway } from './helpers/gateway.js';
import { expectEnvelope } from './helpers/http.js';

const gateway = useGateway();

describe('a NUL character in a request string', () => {
  it('is refused with 400 validation_failed at its pointer, and no app is registered', async () => {
    const answer = await gateway.client.post('/register', {
      owner_email: 'nul@example.com',
      app: { slug: 'nul-app', name: 'a\u0000b' },
    });
    expect(answer.status).toBe(400);
    const error = expectEnvelope(answer.json, 'validation_failed');
    expect(error.schema_pointer).toBe('/app/name');
    expect(await gateway.knex('apps').where({ slug: 'nul-app' }).first()).toBeUndefined();
  });

  it('is refused in member names and on the operator routes too', async () => {
    const key = await gateway.client.post('/register', { owner_email: 'x@example.com', 'a\u0000': 1 });
    expect(expectEnvelope(key.json, 'validation_failed').schema_pointer).toBe('/a\u0000');
    const suppression = await adminFetch(`${gateway.url}/admin/mail-suppressions`, gateway.operatorKey, {
      body: { email: 'nul@example.com', reason: 'bounced\u0000' },
    });
    expect(suppression.status).toBe(400);
    expect(expectEnvelope(suppression.body, 'validation_failed').schema_pointer).toBe('/reason');
  });

  it('still accepts an escaped backslash followed by u0000 (no NUL at all)', async () => {
    const answer = await gateway.client.post('/register', {
      owner_email: 'slash@example.com',
      app: { slug: 'slash-app', name: 'a\\u0000b' },
    });
    expect(answer.status).toBe(201);
  });
});
