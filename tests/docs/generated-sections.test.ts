// The docs' generated sections (the capability list of packages/capabilities/README.md from the
// registry, the endpoint and meta-tool tables of docs/interface.md from the contracts) are what the
// code says today.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generatedSections, readSection } from '../../scripts/docs/sections.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('generated sections of the docs', () => {
  it.each(generatedSections().map((section) => [`${section.file} (${section.name})`, section] as const))(
    '%s matches the code (else run npm run docs)',
    (_, { file, name, text }) => {
      const written = readSection(readFileSync(root + file, 'utf8'), name);
      expect(written, `${file} has no <!-- generated:${name} --> section`).toBeDefined();
      expect(written).toBe(text);
    },
  );

  it('lists every capability of the registry in the capabilities README', () => {
    const section = generatedSections().find(({ name }) => name === 'capabilities');
    const listed = section?.text.match(/^\| `[a-z_.]+` \|/gm) ?? [];
    expect(listed.length).toBeGreaterThanOrEqual(38);
  });
});
