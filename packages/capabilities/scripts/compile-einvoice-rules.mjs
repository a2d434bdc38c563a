#!/usr/bin/env node
// Compiles the official e-invoice Schematron (XSLT 2.0, in ../einvoice-rules/schematron) to SaxonJS
// SEF files in ../einvoice-rules/sef, which is what the validator loads: SaxonJS runs only compiled
// stylesheets, and compiling takes 7–30 s each (≈70 s for all eight on 2 cores, most of a fresh
// clone's first `npm start`). So the SEFs and their stamps are committed (≈1 MB in git): a clone
// compiles nothing. A SEF is rebuilt only when its XSLT, the derive script or the SaxonJS version
// changed (the stamp beside it records them); then test/einvoice-rules-committed.test.ts fails until
// the rebuilt files are committed, and `--check` lists the stale ones without compiling. Written to a
// temporary name and renamed, so a reader never sees half a file.
//
// The skeleton-compiled rule sets (Factur-X, EN 16931 CII and UBL) are also compiled as a derived
// copy (`<name>.indexed`, written by scripts/derive-einvoice-rules.mjs from the official XSLT at build
// time, never edited by hand): the same rules reached through indexes, in SaxonJS ≈5× (Factur-X) and
// ≈1.5–2.5× (EN 16931) faster. The validator runs the derived copies; the official SEFs stay, so a test
// can prove both give the same findings (test/einvoice-derived-rules.test.ts).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { deriveIndexedSchematron } from './derive-einvoice-rules.mjs';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const rules = join(dirname(fileURLToPath(import.meta.url)), '..', 'einvoice-rules');
const sefDir = join(rules, 'sef');

/** SEF name → XSLT source, relative to einvoice-rules/schematron. */
export const STYLESHEETS = {
  'EN16931-UBL': 'en16931-1.3.15/EN16931-UBL-validation.xslt',
  'EN16931-CII': 'en16931-1.3.15/EN16931-CII-validation.xslt',
  'XRechnung-UBL': 'xrechnung-2.5.0/XRechnung-UBL-validation.xsl',
  'XRechnung-CII': 'xrechnung-2.5.0/XRechnung-CII-validation.xsl',
  'FACTUR-X_EN16931': 'facturx-1.09.2/FACTUR-X_EN16931.xslt',
};

/** Derived copy name → the official SEF name it is derived from (the source of that one). */
export const DERIVED_STYLESHEETS = {
  'FACTUR-X_EN16931.indexed': 'FACTUR-X_EN16931',
  'EN16931-CII.indexed': 'EN16931-CII',
  'EN16931-UBL.indexed': 'EN16931-UBL',
};

const deriveScript = join(dirname(fileURLToPath(import.meta.url)), 'derive-einvoice-rules.mjs');

async function stampOf(source, derived) {
  const saxon = require('saxon-js/package.json').version;
  const hash = createHash('sha256').update(await readFile(source));
  // A derived copy is stale when the script that derives it changed, too.
  if (derived) hash.update(await readFile(deriveScript));
  return `${hash.digest('hex')} saxon-js ${saxon}\n`;
}

/** The XSLT a SEF is compiled from (for a derived copy: the official one it is derived from). */
function sourceOf(name) {
  const official = DERIVED_STYLESHEETS[name];
  return join(rules, 'schematron', STYLESHEETS[official ?? name]);
}

/** Whether the SEF of `name` is missing or was compiled from other sources than today's. */
async function isStale(name) {
  const stamp = await stampOf(sourceOf(name), DERIVED_STYLESHEETS[name] !== undefined);
  const current = await readFile(join(sefDir, `${name}.stamp`), 'utf8').catch(() => '');
  const compiled = await stat(join(sefDir, `${name}.sef.json`)).then(
    () => true,
    () => false,
  );
  return current !== stamp || !compiled;
}

/** Every rule set's name: the official ones, then the derived copies. */
const NAMES = [...Object.keys(STYLESHEETS), ...Object.keys(DERIVED_STYLESHEETS)];

/** The names of the rule sets whose SEF is missing or stale. */
export async function staleEinvoiceRules() {
  const stale = await Promise.all(NAMES.map(isStale));
  return NAMES.filter((_, index) => stale[index]);
}

async function compile(name) {
  const official = DERIVED_STYLESHEETS[name];
  const source = sourceOf(name);
  const target = join(sefDir, `${name}.sef.json`);
  const stampFile = join(sefDir, `${name}.stamp`);
  if (!(await isStale(name))) return false;
  const stamp = await stampOf(source, official !== undefined);
  let xsl = source;
  if (official !== undefined) {
    // Beside the SEFs, so document() in the derived rules resolves as in the official ones.
    xsl = join(sefDir, `${name}.xslt`);
    const { xslt, stats } = deriveIndexedSchematron(await readFile(source, 'utf8'));
    await writeFile(xsl, xslt);
    console.info(`derived ${name} from ${official}: ${JSON.stringify(stats)}`);
  }
  const partial = `${target}.${process.pid}.tmp`;
  const started = Date.now();
  await run(
    process.execPath,
    [require.resolve('xslt3/xslt3.js'), `-xsl:${xsl}`, `-export:${partial}`, '-nogo', '-relocate:on'],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  await rename(partial, target);
  await writeFile(stampFile, stamp);
  console.info(`compiled ${name} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return true;
}

/** Compiles every stale SEF, two at a time (the machine's cores); answers how many were compiled. */
export async function compileEinvoiceRules() {
  await mkdir(sefDir, { recursive: true });
  // The Factur-X stylesheet reads its code lists with document() beside the (relocated) SEF.
  await copyFile(
    join(rules, 'schematron', 'facturx-1.09.2', 'FACTUR-X_EN16931_codedb.xml'),
    join(sefDir, 'FACTUR-X_EN16931_codedb.xml'),
  );
  const queue = [...NAMES];
  let compiled = 0;
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      if (await compile(next)) compiled += 1;
    }
  };
  await Promise.all([worker(), worker()]);
  return compiled;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--check')) {
  staleEinvoiceRules().then((stale) => {
    if (stale.length === 0) return;
    console.error(`e-invoice rules to compile and commit (npm run build): ${stale.join(', ')}`);
    process.exit(1);
  });
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  compileEinvoiceRules().then(
    (compiled) => {
      if (compiled > 0)
        console.info(
          `e-invoice rules: ${compiled} compiled in ${((Date.now() - started) / 1000).toFixed(1)} s`,
        );
    },
    async (error) => {
      console.error(`e-invoice rules failed to compile: ${error.message}`);
      await rm(sefDir, { recursive: true, force: true }).catch(() => undefined);
      process.exit(1);
    },
  );
}
