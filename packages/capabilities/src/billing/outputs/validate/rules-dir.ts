import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let found: string | undefined;

/**
 * The package's `einvoice-rules` folder (official XSD and Schematron, and the SEFs the build compiles
 * from them): the nearest one above this module, whether it runs from `src/` (tests) or the bundle in
 * `dist/`.
 */
export function einvoiceRulesDir(): string {
  if (found !== undefined) return found;
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(directory, 'einvoice-rules');
    if (existsSync(join(candidate, 'schematron'))) {
      found = candidate;
      return candidate;
    }
    const parent = dirname(directory);
    if (parent === directory) throw new Error('The einvoice-rules folder of @agw/capabilities is missing.');
    directory = parent;
  }
}
