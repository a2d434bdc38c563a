// Assist artifacts over HTTP with the typed SDK, as an agent keeps its work: save a draft, save it again
// unchanged (no version) and changed (a version), find it by words of its title or content, read an
// earlier version, archive it out of the list; concurrent saves never lose or repeat a version number;
// another organization sees none of it; bad content is refused at its field.

import { beforeAll, describe, expect, it } from 'vitest';
import { billingClient, refusal } from './helpers/billing.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';

const gateway = useGateway();
let agent: ReturnType<typeof billingClient>;
let other: ReturnType<typeof billingClient>;

beforeAll(async () => {
  agent = billingClient(gateway, (await approvedInstallation(gateway, '10')).key);
  other = billingClient(gateway, (await approvedInstallation(gateway, '10')).key);
});

describe('artifact versions', () => {
  it('versions changed content only, and reads any earlier version', async () => {
    const first = await agent.run('assist.artifact.save', {
      title: 'Quarterly plan Q1',
      artifact_type: 'plan',
      source_type: 'chat',
      content: '# Plan\n\nHire two engineers.',
      content_format: 'markdown',
      metadata: { quarter: 'Q1' },
    });
    expect(first).toMatchObject({ created: true, version_created: true, version: { version: 1 } });
    const id = first.artifact.id;
    const same = await agent.run('assist.artifact.save', {
      artifact_id: id,
      content: '# Plan\n\nHire two engineers.',
    });
    expect(same).toMatchObject({ created: false, version_created: false, artifact: { current_version: 1 } });
    const second = await agent.run('assist.artifact.save', {
      artifact_id: id,
      content: '# Plan\n\nHire three engineers.',
    });
    expect(second).toMatchObject({
      version_created: true,
      version: { version: 2 },
      artifact: { current_version: 2 },
    });
    expect(second.version.sha256).not.toBe(first.version.sha256);

    const current = await agent.run('assist.artifact.read', { artifact_id: id, include_versions: true });
    expect(current.artifact).toMatchObject({
      content: '# Plan\n\nHire three engineers.',
      content_version: 2,
    });
    expect(current.versions.map((version) => version.version)).toEqual([2, 1]);
    expect(current.versions[0]).not.toHaveProperty('content');
    const earlier = await agent.run('assist.artifact.read', { artifact_id: id, version: 1 });
    expect(earlier.artifact).toMatchObject({
      content: '# Plan\n\nHire two engineers.',
      content_version: 1,
      current_version: 2,
    });
    const missing = await refusal(agent.run('assist.artifact.read', { artifact_id: id, version: 9 }));
    expect(missing.code).toBe('not_found');
  });

  it('20 concurrent saves of different content: versions 2..21, none lost, none repeated', async () => {
    const { artifact } = await agent.run('assist.artifact.save', { title: 'Race', content: 'v1' });
    const saves = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        agent.run('assist.artifact.save', { artifact_id: artifact.id, content: `content ${index}` }),
      ),
    );
    expect(saves.map((save) => save.version.version).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, index) => index + 2),
    );
    const read = await agent.run('assist.artifact.read', {
      artifact_id: artifact.id,
      include_versions: true,
      version_limit: 50,
    });
    expect(read.versions.map((version) => version.version)).toEqual(
      Array.from({ length: 21 }, (_, index) => 21 - index),
    );
    expect(read.artifact.current_version).toBe(21);
  });
});

describe('finding artifacts', () => {
  it('matches words of title and content, hides archived ones unless asked, and content only on request', async () => {
    const memo = await agent.run('assist.artifact.save', {
      title: 'Kundenmemo Müller',
      artifact_type: 'summary',
      content: 'Lieferverzögerung bei Photovoltaik-Modulen, Rückruf vereinbart.',
    });
    await agent.run('assist.artifact.save', {
      title: 'Unrelated',
      artifact_type: 'summary',
      content: 'Nothing here.',
    });
    const byContent = await agent.run('assist.artifact.list', { query: 'photovoltaik rückruf' });
    expect(byContent.items.map((item) => item.id)).toEqual([memo.artifact.id]);
    expect(byContent.items[0]).not.toHaveProperty('content');
    const byPrefix = await agent.run('assist.artifact.list', { query: 'kundenme', include_content: true });
    expect(byPrefix.items).toEqual([
      expect.objectContaining({ id: memo.artifact.id, content: expect.stringContaining('Rückruf') }),
    ]);
    const byType = await agent.run('assist.artifact.list', { artifact_type: 'summary', limit: 100 });
    expect(byType.items.length).toBeGreaterThanOrEqual(2);

    const archived = await agent.run('assist.artifact.archive', { artifact_id: memo.artifact.id });
    expect(archived).toMatchObject({ changed: true, artifact: { archived: true } });
    expect((await agent.run('assist.artifact.list', { query: 'photovoltaik' })).items).toEqual([]);
    const withArchived = await agent.run('assist.artifact.list', {
      query: 'photovoltaik',
      include_archived: true,
    });
    expect(withArchived.items.map((item) => item.id)).toEqual([memo.artifact.id]);
    const again = await agent.run('assist.artifact.archive', { artifact_id: memo.artifact.id });
    expect(again.changed).toBe(false);
    const back = await agent.run('assist.artifact.archive', {
      artifact_id: memo.artifact.id,
      archived: false,
    });
    expect(back).toMatchObject({ changed: true, artifact: { archived: false, archived_at: null } });
  });

  it("another organization's artifacts answer like missing ones and never show in its lists", async () => {
    const secret = await agent.run('assist.artifact.save', {
      title: 'Geheimplan',
      content: 'streng vertraulich',
    });
    const read = await refusal(other.run('assist.artifact.read', { artifact_id: secret.artifact.id }));
    expect(read.code).toBe('not_found');
    const save = await refusal(
      other.run('assist.artifact.save', { artifact_id: secret.artifact.id, content: 'x' }),
    );
    expect(save.code).toBe('not_found');
    expect((await other.run('assist.artifact.list', { query: 'geheimplan' })).items).toEqual([]);
  });
});

describe('bad input', () => {
  it('refuses a missing title, JSON that does not parse and content over 256 KiB at their fields', async () => {
    const untitled = await refusal(agent.run('assist.artifact.save', { content: 'x' }));
    expect(untitled).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(untitled.message).toContain('/params/title');
    const json = await refusal(
      agent.run('assist.artifact.save', { title: 'Data', content: '{"a":', content_format: 'json' }),
    );
    expect(json.message).toContain('/params/content');
    // 100 000 characters of three bytes each: within the schema's length, over the byte limit.
    const big = await refusal(
      agent.run('assist.artifact.save', { title: 'Big', content: '€'.repeat(100_000) }),
    );
    expect(big).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(big.message).toContain('300000 bytes');
  });
});
