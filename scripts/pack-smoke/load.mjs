// Every library entry point loads through ESM `import` and CommonJS `require`, and exports something.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const entries = {
  '@agw/contracts': 'createValidator',
  '@agw/guard': 'createStandardChain',
  '@agw/capabilities': null,
  '@agw/client': 'createClient',
  '@agw/client/admin': 'createAdminClient',
  '@agw/client/imap': null,
  '@agw/gateway': 'startGateway',
};
for (const [name, expected] of Object.entries(entries)) {
  const esm = await import(name);
  const cjs = require(name);
  for (const [kind, module] of [
    ['import', esm],
    ['require', cjs],
  ]) {
    const keys = Object.keys(module);
    if (keys.length === 0) throw new Error(`${kind}('${name}') exports nothing`);
    if (expected !== null && typeof module[expected] !== 'function') {
      throw new Error(`${kind}('${name}').${expected} is not a function`);
    }
  }
  console.log(`${name}: import and require ok (${Object.keys(esm).length} exports)`);
}
