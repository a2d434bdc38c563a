// Writes docs/configuration.md from the settings schemas of the gateway and its domains.
// Usage, from the repository root: node --conditions=@agw/source --import tsx scripts/config-table.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configurationDoc } from '../apps/gateway/src/config-docs.js';

const path = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));
const text = configurationDoc();
let before = '';
try {
  before = readFileSync(path, 'utf8');
} catch {
  // First run: the file does not exist yet.
}
if (text !== before) writeFileSync(path, text);
console.log(`docs/configuration.md: ${text === before ? 'unchanged' : 'written'}`);
// The registry's modules may keep worker pools or timers alive; the script is done.
process.exit(0);
