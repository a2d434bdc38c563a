/// <reference path="./saxon-js.d.ts" />
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type SaxonJSApi from 'saxon-js';
import { packageAssetDir } from '../assets.js';

let saxon: Promise<typeof SaxonJSApi> | undefined;

/**
 * SaxonJS, loaded by the first check: importing it takes ≈0.6 s, which a process that never checks an
 * e-invoice (the CLI's other commands, a gateway whose agents make none) should not pay at start.
 */
function saxonJs(): Promise<typeof SaxonJSApi> {
  saxon ??= import('saxon-js').then((module) => module.default);
  return saxon;
}

/** One failed assert or successful report of a Schematron run (SVRL). */
export interface SchematronFinding {
  readonly id: string;
  /** `fatal`, `error`, `warning`, `information`, or empty (the Factur-X rules leave most empty). */
  readonly flag: string;
  readonly location: string;
  readonly text: string;
}

const loaded = new Map<string, Promise<unknown>>();

/** A compiled stylesheet, parsed once per process and shared by concurrent first callers. */
function stylesheet(name: string): Promise<unknown> {
  let sef = loaded.get(name);
  if (sef === undefined) {
    const file = join(packageAssetDir('einvoice-rules'), 'sef', `${name}.sef.json`);
    sef = readFile(file, 'utf8').then(
      (text) => JSON.parse(text) as unknown,
      () => {
        loaded.delete(name);
        throw new Error(
          `The compiled e-invoice rules are missing (${file}): build @agw/capabilities (it runs scripts/compile-einvoice-rules.mjs).`,
        );
      },
    );
    loaded.set(name, sef);
  }
  return sef;
}

/** The Factur-X code lists, which its rules read with document() beside the stylesheet. */
const CODE_LISTS = 'FACTUR-X_EN16931_codedb.xml';
let codeLists: Promise<Record<string, unknown>> | undefined;

/**
 * The documents the rules read, parsed once per process: SaxonJS otherwise reads and parses the
 * 180 kB of Factur-X code lists again on every run (≈40–60 ms of a check). They are read-only.
 */
function documentPool(): Promise<Record<string, unknown>> {
  codeLists ??= (async () => {
    const file = join(packageAssetDir('einvoice-rules'), 'sef', CODE_LISTS);
    const SaxonJS = await saxonJs();
    const parsed = await SaxonJS.getResource({ file, type: 'xml' }).catch(() => {
      throw new Error(
        `The compiled e-invoice rules are missing (${file}): build @agw/capabilities (it runs scripts/compile-einvoice-rules.mjs).`,
      );
    });
    return { [pathToFileURL(file).href]: parsed };
  })().catch((error: unknown) => {
    codeLists = undefined;
    throw error;
  });
  return codeLists;
}

/** A document SaxonJS parsed, to be checked by several rule sets (see `parseForRules`). */
export interface ParsedXml {
  readonly parsed: unknown;
}

/**
 * `xml` parsed once for every rule set that checks it (each would otherwise parse it again: ≈5–15 ms
 * for a 60-line invoice). The rules only read it. Rejects what is not well-formed XML.
 */
export async function parseForRules(xml: string): Promise<ParsedXml> {
  const SaxonJS = await saxonJs();
  return { parsed: await SaxonJS.getResource({ text: xml, type: 'xml' }) };
}

/** Runs the compiled Schematron `name` on `xml`; answers its findings in document order. */
export async function runSchematron(name: string, xml: string | ParsedXml): Promise<SchematronFinding[]> {
  const SaxonJS = await saxonJs();
  const output = await SaxonJS.transform(
    {
      stylesheetInternal: await stylesheet(name),
      // The Factur-X rules read their code lists with document() relative to the stylesheet.
      stylesheetBaseURI: pathToFileURL(join(packageAssetDir('einvoice-rules'), 'sef', `${name}.sef.json`))
        .href,
      documentPool: await documentPool(),
      ...(typeof xml === 'string' ? { sourceText: xml } : { sourceNode: xml.parsed }),
      destination: 'document',
    },
    'async',
  );
  const nodes = SaxonJS.XPath.evaluate(
    '//svrl:failed-assert | //svrl:successful-report',
    output.principalResult,
    { namespaceContext: { svrl: 'http://purl.oclc.org/dsdl/svrl' }, resultForm: 'array' },
  );
  return nodes.map((node) => ({
    id: node.getAttribute('id') ?? '',
    flag: node.getAttribute('flag') ?? '',
    location: node.getAttribute('location') ?? '',
    text: (node.textContent ?? '').trim().replace(/\s+/g, ' '),
  }));
}

/** Loads the stylesheets of `names` ahead of the first document (a warm-up, e.g. at start). */
export async function loadSchematron(names: readonly string[]): Promise<void> {
  await Promise.all([...names.map(stylesheet), documentPool()]);
}
