import { randomUUID } from 'node:crypto';
import { type GatewayHandle, loadConfig, startGateway } from '@agw/gateway';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from './helpers/environment.js';

// Events have no foreign key to their property: the writer's batch locks the property once and a trigger
// deletes the events with it. A property deleted while its events wait to be written must not leave them
// behind. Needs a second connection, so PostgreSQL only (PGlite has one).
describe.runIf(process.env.DATABASE_URL)(
  'a property deleted while its events are being written (PostgreSQL only)',
  () => {
    let environment: TestEnvironment;
    let gateway: GatewayHandle;
    let client: pg.Client;

    beforeAll(async () => {
      environment = await createTestEnvironment();
      gateway = await startGateway(loadConfig(environment.env));
      client = new pg.Client({ connectionString: environment.env.DATABASE_URL });
      await client.connect();
    });
    afterAll(async () => {
      await client?.end();
      await gateway?.close();
      await environment?.cleanup();
    });

    const eventsOf = async (propertyId: string) =>
      Number(
        (
          await client.query('select count(*) as n from analytics_events where property_id = $1', [
            propertyId,
          ])
        ).rows[0].n,
      );

    it('takes the events it waited for with it', async () => {
      const organizationId = randomUUID();
      const propertyId = randomUUID();
      const ingestionId = `ap_${propertyId.slice(0, 8)}`;
      await client.query(
        `insert into organizations (id, name, short_id, created_at, updated_at) values ($1, 'Acme', 'ACME2345', now(), now())`,
        [organizationId],
      );
      await client.query(
        `insert into analytics_properties (id, organization_id, name, domains, timezone, ingestion_id, retention_days,
         created_at, updated_at) values ($1, $2, 'Site', '["shop.example"]', 'UTC', $3, 30, now(), now())`,
        [propertyId, organizationId, ingestionId],
      );
      const send = (name: string) =>
        fetch(`${gateway.url}/a/events`, {
          method: 'POST',
          headers: {
            'content-type': 'text/plain',
            'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0',
          },
          body: JSON.stringify({ ingestion_id: ingestionId, name, url: 'https://shop.example/' }),
        });
      expect((await send('before')).status).toBe(202);
      await expect.poll(() => eventsOf(propertyId)).toBe(1);

      // The delete holds the property's row until it commits; the writer's batch waits for it meanwhile.
      await client.query('begin');
      await client.query('delete from analytics_properties where id = $1', [propertyId]);
      expect((await send('during')).status).toBe(202);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await client.query('commit');

      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await eventsOf(propertyId)).toBe(0);
    });
  },
);
