import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const found = new Map<string, string>();

/**
 * A data folder shipped with the package (`einvoice-rules`: official XSD and Schematron and the SEFs
 * the build compiles from them; `fonts`): the nearest one above this module, whether it runs from
 * `src/` (tests) or from the bundle in `dist/`.
 */
export function packageAssetDir(name: 'einvoice-rules' | 'fonts'): string {
  const known = found.get(name);
  if (known !== undefined) return known;
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(directory, name);
    if (existsSync(join(candidate, 'README.md'))) {
      found.set(name, candidate);
      return candidate;
    }
    const parent = dirname(directory);
    if (parent === directory) throw new Error(`The ${name} folder of @agw/capabilities is missing.`);
    directory = parent;
  }
}
