import { capabilityContracts } from '@agw/contracts';
import { type CatalogContract, issueKey } from '@agw/gateway';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Answer, onboard } from './helpers/access-client.js';
import { useGateway } from './helpers/gateway.js';
import { expectEnvelope, expectSchema } from './helpers/http.js';

const template = capabilityContracts.find((c) => c.id === 'core.org.current.get') as CatalogContract;
const widget = (version: string, status?: 'deprecated'): CatalogContract => ({
  ...template,
  id: 'demo.widget.read',
  domain: 'demo',
  version,
  summary: `Read a widget (v${version}).`,
  tags: ['widget'],
  ...(status ? { status } : {}),
});
const catalog: CatalogContract[] = [
  ...capabilityContracts,
  widget('1.2.0'),
  widget('1.10.0'),
  widget('2.0.0', 'deprecated'),
];

const gateway = useGateway({ catalog });
let narrowKey: string;

beforeAll(async () => {
  const flow = await onboard(gateway.client);
  const installation = await gateway.knex('installations').where({ id: flow.installationId }).first();
  narrowKey = await gateway.knex.transaction(
    async (trx) =>
      (
        await issueKey(trx, {
          kind: 'installation',
          scopes: ['core:read'],
          ttlSeconds: 3600,
          installationId: flow.installationId,
          organizationId: installation.organization_id,
        })
      ).token,
  );
});

async function describeCall(body: unknown, key?: string): Promise<Answer> {
  const answer = await gateway.client.post('/mcp/describe', body, { idem: null, ...(key ? { key } : {}) });
  expectSchema(answer.status === 200 ? 'CapabilityDescription' : 'ErrorEnvelope', answer.json);
  return answer;
}

describe('describe', () => {
  it('returns the full runtime contract of a capability', async () => {
    const answer = await describeCall({ id: 'documents.document.upload' });
    expect(answer.status).toBe(200);
    const contract = capabilityContracts.find((c) => c.id === 'documents.document.upload');
    expect(answer.json).toMatchObject({
      interface_version: '1.0',
      id: 'documents.document.upload',
      version: '1.0.0',
      status: 'active',
      available_versions: ['1.0.0'],
      dry_run: contract?.dry_run,
      scopes: contract?.scopes,
      risk_level: contract?.risk_level,
      cost_credits: contract?.cost_credits,
      mutating: true,
      idempotency_key_required: true,
      access: 'allowed',
    });
    expect(answer.json.input_schema.properties).toHaveProperty('content_base64');
    expect(answer.json.output_schema.type).toBe('object');
  });

  it('explains the fields of a schema: what a unit code means and which standard it follows', async () => {
    const answer = await describeCall({ id: 'billing.document.create_draft' });
    expect(answer.status).toBe(200);
    const line = answer.json.input_schema.properties.lines.items.properties;
    expect(line.unit.description).toContain('UN/ECE Recommendation 20');
    expect(line.unit.description).toContain('HUR = hour');
    expect(answer.json.input_schema.properties.currency.description).toContain('ISO 4217');
    expect(answer.json.input_schema.properties.tax_treatment.description).toContain('UNTDID 5305');
  });

  it('resolves an omitted version to the latest non-deprecated one by semver precedence', async () => {
    const latest = await describeCall({ id: 'demo.widget.read' });
    expect(latest.status).toBe(200);
    expect(latest.json).toMatchObject({
      version: '1.10.0',
      status: 'active',
      available_versions: ['1.2.0', '1.10.0', '2.0.0'],
    });
    const exact = await describeCall({ id: 'demo.widget.read', version: '2.0.0' });
    expect(exact.json).toMatchObject({ version: '2.0.0', status: 'deprecated' });
    const older = await describeCall({ id: 'demo.widget.read', version: '1.2.0' });
    expect(older.json.version).toBe('1.2.0');
  });

  it('answers an unknown version of a known id with 404 listing the versions', async () => {
    for (const version of ['3.0.0', '1.10', 'latest']) {
      const answer = await describeCall({ id: 'demo.widget.read', version });
      expect(answer.status).toBe(404);
      const error = expectEnvelope(answer.json, 'capability_not_found');
      expect(error.hint).toContain('1.2.0, 1.10.0, 2.0.0');
      expect(error.details).toEqual([
        { id: 'demo.widget.read', available_versions: ['1.2.0', '1.10.0', '2.0.0'] },
      ]);
    }
  });

  it('answers an unknown id with 404 naming the closest ids', async () => {
    const typo = await describeCall({ id: 'billing.documnet.read' });
    expect(typo.status).toBe(404);
    const error = expectEnvelope(typo.json, 'capability_not_found');
    expect(error.hint).toMatch(/^Closest ids: billing\.document\.read, /);
    expect(error.details).toHaveLength(3);
    expect((error.details as { closest_id: string }[])[0]).toEqual({ closest_id: 'billing.document.read' });
    const wrongVerb = await describeCall({ id: 'demo.widget.write' });
    expect(String(expectEnvelope(wrongVerb.json, 'capability_not_found').hint)).toMatch(
      /^Closest ids: demo\.widget\.read/,
    );
  });

  it('validates the body: an id must have three lowercase segments, no other properties', async () => {
    for (const [body, pointer] of [
      [{ id: 'Billing.Document.Read' }, '/id'],
      [{ id: 'billing.document' }, '/id'],
      [{}, ''],
      [{ id: 'core.org.current.get', extra: true }, ''],
    ] as const) {
      const answer = await describeCall(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(String(expectEnvelope(answer.json, 'validation_failed').schema_pointer)).toContain(pointer);
    }
  });

  it('reports access for the calling key and refuses an invalid key with 401', async () => {
    expect((await describeCall({ id: 'billing.document.read' })).json.access).toBe('allowed');
    expect((await describeCall({ id: 'billing.document.read' }, narrowKey)).json.access).toBe(
      'scope_missing',
    );
    expect((await describeCall({ id: 'core.org.current.get' }, narrowKey)).json.access).toBe('allowed');
    expect((await describeCall({ id: 'billing.payment.record' })).json.access).toBe('approval_always');
    const invalid = await describeCall({ id: 'core.org.current.get' }, 'agw_ak_nope.nope');
    expect(invalid.status).toBe(401);
  });

  it('lists an injected catalog in search, one result per id at its resolved version', async () => {
    const answer = await gateway.client.post('/mcp/search_capabilities', { query: 'widget' }, { idem: null });
    expectSchema('SearchCapabilitiesResponse', answer.json);
    expect(answer.json.total).toBe(1);
    expect(answer.json.results[0]).toMatchObject({ id: 'demo.widget.read', version: '1.10.0' });
  });
});
