// The validator runs derived copies of the official Factur-X and EN 16931 Schematron (the same rules
// reached through indexes, scripts/derive-einvoice-rules.mjs) because the official ones take ≈0.6 s
// per 60-line Factur-X in SaxonJS. Derived rules are only acceptable if they judge exactly as the
// official ones: here both run on the official samples, every document of the matrix, and invoices
// broken on purpose (bad codes from the code lists, wrong sums, missing and empty elements, unused
// attributes), and must report the same failed asserts and reports — ids, flags, locations, texts —
// in the same order. The broken invoices must break rules, so the comparison is not between silences.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { OFFICIAL_SCHEMATRON, SCHEMATRON_NAMES } from '../src/billing/outputs/validate/profiles.js';
import {
  loadSchematron,
  type ParsedXml,
  parseForRules,
  runSchematron,
} from '../src/billing/outputs/validate/schematron.js';
import { ciiFacturX, xrechnungUbl } from '../src/billing/outputs/xml/index.js';
import { EINVOICE_MATRIX } from './fixtures/einvoice-matrix.js';

const sample = (file: string) =>
  readFileSync(join(import.meta.dirname, 'fixtures', 'einvoice-samples', file), 'utf8');

const CII_RULES = ['FACTUR-X_EN16931.indexed', 'EN16931-CII.indexed'];
const UBL_RULES = ['EN16931-UBL.indexed'];

/** A matrix document with three rates, document discounts and a note: many rules fire on it. */
const base = EINVOICE_MATRIX.find(({ name }) => name.startsWith('three rates'))?.doc;
if (base === undefined) throw new Error('the matrix has no three-rate document');

/** [what is broken, what to replace, replacement]; the replacement must change the document. */
type Breakage = readonly [string, RegExp, string];

const CII_BREAKAGES: readonly Breakage[] = [
  ['a unit code outside the code list', /unitCode="[A-Z0-9]+"/, 'unitCode="QQQ"'],
  ['every unit code outside the code list', /unitCode="[A-Z0-9]+"/g, 'unitCode="HURX"'],
  ['an unknown currency', /<ram:InvoiceCurrencyCode>EUR</, '<ram:InvoiceCurrencyCode>EUX<'],
  ['an unknown country', /<ram:CountryID>DE</, '<ram:CountryID>XX<'],
  ['an unknown document type', /<ram:TypeCode>380</, '<ram:TypeCode>999<'],
  ['an unknown date format', /format="102"/, 'format="999"'],
  ['an unknown VAT category on a line', /<ram:CategoryCode>S</, '<ram:CategoryCode>Q<'],
  ['a line total that does not add up', /<ram:LineTotalAmount>[^<]+</, '<ram:LineTotalAmount>0.01<'],
  ['a wrong grand total', /<ram:GrandTotalAmount>[^<]+</, '<ram:GrandTotalAmount>1.00<'],
  ['no line id', /<ram:LineID>[^<]+<\/ram:LineID>/, ''],
  ['an empty element', /<ram:Name>[^<]+</, '<ram:Name><'],
  ['an attribute the profile does not use', /<ram:TypeCode>/, '<ram:TypeCode listID="UNTDID 1001">'],
  ['no specification identifier', /urn:cen\.eu:en16931:2017/, 'urn:example:unknown'],
  [
    'a second VAT breakdown of the same rate',
    /(<\/ram:SpecifiedTradeSettlementPaymentMeans>\s*)(<ram:ApplicableTradeTax>[\s\S]*?<\/ram:ApplicableTradeTax>)/,
    '$1$2$2',
  ],
];

const UBL_BREAKAGES: readonly Breakage[] = [
  ['a unit code outside the code list', /unitCode="[A-Z0-9]+"/, 'unitCode="QQQ"'],
  ['an unknown currency', /<cbc:DocumentCurrencyCode>EUR</, '<cbc:DocumentCurrencyCode>EUX<'],
  ['an unknown country', /<cbc:IdentificationCode>DE</, '<cbc:IdentificationCode>XX<'],
  ['an unknown VAT category', /<cbc:ID>S<\/cbc:ID>/, '<cbc:ID>Q</cbc:ID>'],
  [
    'a line amount that does not add up',
    /<cbc:LineExtensionAmount currencyID="EUR">[^<]+</,
    '<cbc:LineExtensionAmount currencyID="EUR">0.01<',
  ],
  [
    'a wrong payable amount',
    /<cbc:PayableAmount currencyID="EUR">[^<]+</,
    '<cbc:PayableAmount currencyID="EUR">1.00<',
  ],
  ['no invoice number', /<cbc:ID>RE-[^<]+<\/cbc:ID>/, ''],
  ['a line without an item name', /<cbc:Name>Beratung \(Stunde\)<\/cbc:Name>/, ''],
  ['a second VAT breakdown of the same rate', /(<cac:TaxSubtotal>[\s\S]*?<\/cac:TaxSubtotal>)/, '$1$1'],
  ['no specification identifier', /<cbc:CustomizationID>[^<]+</, '<cbc:CustomizationID><'],
];

function broken(xml: string, [what, pattern, replacement]: Breakage): [string, string] {
  const changed = xml.replace(pattern, replacement);
  if (changed === xml) throw new Error(`"${what}" does not apply to the document any more`);
  return [what, changed];
}

/** The official XRechnung test cases, each in UBL and CII. */
const KOSIT_CASES = [
  '01.01a-INVOICE',
  '01.05_minimal_test',
  '01.18a-INVOICE',
  '01.20a-INVOICE',
  '01.21a-INVOICE',
];

const CII_DOCUMENTS: readonly [string, string][] = [
  ['the official sample EN16931_Einfach (Factur-X)', sample('EN16931_Einfach.factur-x.xml')],
  ['the official sample CII_example1', sample('CII_example1.xml')],
  ...KOSIT_CASES.map((name): [string, string] => [
    `the official sample ${name} (CII)`,
    sample(`${name}_uncefact.xml`),
  ]),
  [
    'an empty CrossIndustryInvoice',
    '<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>',
  ],
  ...EINVOICE_MATRIX.map(({ name, doc }): [string, string] => [`matrix: ${name}`, ciiFacturX(doc)]),
];
const CII_BROKEN = CII_BREAKAGES.map((breakage) => broken(ciiFacturX(base), breakage));

const UBL_DOCUMENTS: readonly [string, string][] = [
  ...KOSIT_CASES.map((name): [string, string] => [
    `the official sample ${name} (UBL)`,
    sample(`${name}_ubl.xml`),
  ]),
  ['the official sample ubl-tc434-example1', sample('ubl-tc434-example1.xml')],
  ['the official sample ubl-tc434-creditnote1', sample('ubl-tc434-creditnote1.xml')],
  [
    'the official sample without buyer reference, wrong payable amount',
    sample('01.01a-INVOICE_ubl.no-BuyerReference.wrong-PayableAmount.xml'),
  ],
  ['an empty Invoice', '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>'],
  ...EINVOICE_MATRIX.map(({ name, doc }): [string, string] => [`matrix: ${name}`, xrechnungUbl(doc)]),
];
const UBL_BROKEN = UBL_BREAKAGES.map((breakage) => broken(xrechnungUbl(base), breakage));

/**
 * What both judge a document by: every failed assert and successful report, in order. The official
 * rules read the text; the derived ones the document parsed once, as the validator passes it to each
 * of its rule sets.
 */
async function sameFindings(derived: string, xml: string, parsed?: ParsedXml) {
  const official = OFFICIAL_SCHEMATRON[derived];
  if (official === undefined) throw new Error(`${derived} is not a derived rule set`);
  const theirs = await runSchematron(official, xml);
  const ours = await runSchematron(derived, parsed ?? (await parseForRules(xml)));
  expect(ours).toEqual(theirs);
  return theirs;
}

/** Every rule set of `names` on `xml`, parsed once: the findings of all. */
async function allSameFindings(names: readonly string[], xml: string) {
  const parsed = await parseForRules(xml);
  const found = [];
  for (const name of names) found.push(...(await sameFindings(name, xml, parsed)));
  return found;
}

beforeAll(
  () => loadSchematron([...Object.keys(OFFICIAL_SCHEMATRON), ...Object.values(OFFICIAL_SCHEMATRON)]),
  120_000,
);

describe('the derived Factur-X and EN 16931 rules judge exactly as the official ones', () => {
  it('are what the validator runs', () => {
    for (const name of Object.keys(OFFICIAL_SCHEMATRON)) expect(SCHEMATRON_NAMES).toContain(name);
  });

  it.each(CII_DOCUMENTS)('CII: %s', async (_, xml) => {
    await allSameFindings(CII_RULES, xml);
  });

  it.each(CII_BROKEN)('CII with %s', async (_, xml) => {
    expect((await allSameFindings(CII_RULES, xml)).length).toBeGreaterThan(0);
  });

  it.each(UBL_DOCUMENTS)('UBL: %s', async (_, xml) => {
    await allSameFindings(UBL_RULES, xml);
  });

  it.each(UBL_BROKEN)('UBL with %s', async (_, xml) => {
    expect((await allSameFindings(UBL_RULES, xml)).length).toBeGreaterThan(0);
  });

  it('a unit code outside the code list is refused by the code-list rules of both', async () => {
    const [, xml] = broken(ciiFacturX(base), CII_BREAKAGES[0] as Breakage);
    const factur = await sameFindings('FACTUR-X_EN16931.indexed', xml);
    const cen = await sameFindings('EN16931-CII.indexed', xml);
    // Factur-X reads its code lists from FACTUR-X_EN16931_codedb.xml (the rewritten lookups), CEN
    // from a list in the assert itself.
    expect(factur.map((finding) => finding.id)).toContain('FX-SCH-A-000613');
    expect(cen.map((finding) => finding.id)).toContain('BR-CL-23');
  });
});

/**
 * Every leaf element of four documents dropped, emptied, set to `X` and doubled, one at a time (≈2 500
 * documents, ≈20 min on the shared 2-core machine): run with `AGW_EINVOICE_SWEEP=1 npx vitest run
 * packages/capabilities/test/einvoice-derived-rules.test.ts` after a rules update or a change of the
 * derivation. A document the rules cannot evaluate (e.g. `xs:decimal('X')`) must fail both.
 */
describe.runIf(process.env.AGW_EINVOICE_SWEEP === '1')('every leaf broken, one at a time', () => {
  const documents: readonly [string, string, readonly string[]][] = [
    ['matrix CII', ciiFacturX(base), CII_RULES],
    ['CII_example1', sample('CII_example1.xml'), CII_RULES],
    ['matrix UBL', xrechnungUbl(base), UBL_RULES],
    ['ubl-tc434-example1', sample('ubl-tc434-example1.xml'), UBL_RULES],
  ];

  it.each(documents)(
    '%s',
    async (_, xml, rules) => {
      // The validator treats any failure of a rule set alike (the schema errors then speak).
      const outcome = (name: string, input: string | ParsedXml) =>
        runSchematron(name, input).catch(() => 'fails');
      for (const leaf of xml.matchAll(/<([A-Za-z]+:[A-Za-z]+)(\s[^>]*)?>([^<]*)<\/\1>/g)) {
        const [whole, name, attributes = ''] = leaf;
        const replacements = [
          '',
          `<${name}${attributes}></${name}>`,
          `<${name}${attributes}>X</${name}>`,
          whole + whole,
        ];
        for (const replacement of replacements) {
          const variant = xml.slice(0, leaf.index) + replacement + xml.slice(leaf.index + whole.length);
          const parsed = await parseForRules(variant);
          for (const derived of rules) {
            const official = OFFICIAL_SCHEMATRON[derived] as string;
            expect(await outcome(derived, parsed), `${whole} → ${replacement}`).toEqual(
              await outcome(official, variant),
            );
          }
        }
      }
    },
    3_600_000,
  );
});
