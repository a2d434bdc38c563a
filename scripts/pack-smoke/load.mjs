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

// Loading every library, the gateway included, loads neither SaxonJS nor pdfkit (≈0.6 and 0.25 s of
// every start, e.g. of each `agw` command): a process pays for them at its first e-invoice check or PDF.
const loadedOnDemand = () =>
  Object.keys(require.cache).filter((file) => /[\\/]node_modules[\\/](saxon-js|pdfkit)[\\/]/.test(file));
if (loadedOnDemand().length > 0) {
  throw new Error(`loading the libraries loaded ${loadedOnDemand().join(', ')} before any check or PDF`);
}
console.log('loading the libraries loads neither SaxonJS nor pdfkit');

// The e-invoice validator reads its compiled rules and schemas relative to the installed package:
// both builds must find them (CommonJS has no import.meta.url of its own; tsup shims it).
const emptyInvoice = '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>';
for (const [kind, module] of [
  ['import', await import('@agw/capabilities')],
  ['require', require('@agw/capabilities')],
]) {
  const report = await module.validateEInvoice(emptyInvoice, 'xrechnung-ubl');
  if (report.valid !== false || report.rule_sets.length === 0) {
    throw new Error(
      `${kind}('@agw/capabilities').validateEInvoice did not report an empty invoice as invalid`,
    );
  }
  console.log(`@agw/capabilities: ${kind} validates an e-invoice (${report.rule_sets.length} rule sets ran)`);
}
if (!loadedOnDemand().some((file) => file.includes('saxon-js'))) {
  throw new Error(
    'the e-invoice checks ran but SaxonJS is not among the loaded modules: the probe above is blind',
  );
}
