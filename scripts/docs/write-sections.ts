// Writes the generated sections of the docs (scripts/docs/sections.ts) into their files.
// Usage: npm run docs (node --conditions=@agw/source --import tsx scripts/docs/write-sections.ts: the
// workspace packages from their sources, as the tests read them)
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generatedSections, writeSection } from './sections.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

for (const section of generatedSections()) {
  const path = root + section.file;
  const before = readFileSync(path, 'utf8');
  const after = writeSection(before, section.name, section.text);
  if (after !== before) writeFileSync(path, after);
  console.log(`${section.file} (${section.name}): ${after === before ? 'unchanged' : 'written'}`);
}
// The registry's modules may keep worker pools or timers alive; the script is done.
process.exit(0);
