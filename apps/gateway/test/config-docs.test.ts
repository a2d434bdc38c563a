// docs/configuration.md is the settings schemas rendered (gateway and every domain): it fails when the
// file drifts from them; and no domain reads process.env past the schemas. Regenerate the file with
// `node --conditions=@agw/source --import tsx scripts/config-table.ts`.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION_DOC_MARKER, configurationDoc } from '../src/config-docs.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts'))
    .map((path) => join(folder, path));
}

describe('docs/configuration.md', () => {
  it('is what the settings schemas render, every variable of the gateway and the domains included', () => {
    const written = readFileSync(join(root, 'docs/configuration.md'), 'utf8');
    expect(written.startsWith(CONFIGURATION_DOC_MARKER)).toBe(true);
    expect(written).toBe(configurationDoc());
    // The variables the hand-written table missed.
    for (const name of [
      'CALENDAR_READS_PER_MINUTE',
      'CALENDAR_BOOKINGS_PER_MINUTE',
      'ANALYTICS_EVENTS_PER_MINUTE',
    ]) {
      expect(written).toContain(`| \`${name}\` |`);
    }
  });

  it('no domain reads process.env: its settings come from the host, validated at start', () => {
    const readers = sourceFiles(join(root, 'packages/capabilities/src')).filter((path) =>
      readFileSync(path, 'utf8').includes('process.env'),
    );
    expect(readers).toEqual([]);
  });
});
