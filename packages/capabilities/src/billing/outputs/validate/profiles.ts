import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageAssetDir } from '../assets.js';

let customLevels: Record<string, Levels> | undefined;

/** KoSIT's severity overrides per scenario (transcribed from its validator configuration). */
function scenarioLevels(scenario: string): Levels {
  customLevels ??= JSON.parse(
    readFileSync(
      join(packageAssetDir('einvoice-rules'), 'schematron', 'xrechnung-2.5.0', 'kosit-custom-levels.json'),
      'utf8',
    ),
  ) as Record<string, Levels>;
  return customLevels[scenario] ?? {};
}

/** What the validator checks an XML as. */
export type EInvoiceKind = 'xrechnung-ubl' | 'xrechnung-cii' | 'facturx-cii' | 'en16931-ubl' | 'en16931-cii';

export const EINVOICE_KINDS: readonly EInvoiceKind[] = [
  'xrechnung-ubl',
  'xrechnung-cii',
  'facturx-cii',
  'en16931-ubl',
  'en16931-cii',
];

/** An official rule set: its name in reports, version, and how it runs. */
export interface RuleSet {
  readonly name: string;
  readonly version: string;
  /**
   * An XSD: folder under einvoice-rules/xsd and main schema; a Schematron: its compiled SEF name
   * (`.indexed`: the official rules derived to run faster, see scripts/derive-einvoice-rules.mjs).
   */
  readonly xsd?: { readonly folder: string; readonly main: string };
  readonly schematron?: string;
}

const UBL_INVOICE: RuleSet = {
  name: 'UBL 2.1 Invoice XSD',
  version: '2.1',
  xsd: { folder: 'ubl-2.1', main: 'maindoc/UBL-Invoice-2.1.xsd' },
};
const UBL_CREDIT_NOTE: RuleSet = {
  name: 'UBL 2.1 CreditNote XSD',
  version: '2.1',
  xsd: { folder: 'ubl-2.1', main: 'maindoc/UBL-CreditNote-2.1.xsd' },
};
const CII: RuleSet = {
  name: 'UN/CEFACT CII D16B XSD',
  version: 'D16B',
  xsd: { folder: 'cii-d16b', main: 'CrossIndustryInvoice_100pD16B.xsd' },
};
const FACTURX_XSD: RuleSet = {
  name: 'Factur-X EN 16931 XSD',
  version: '1.09.2',
  xsd: { folder: 'facturx-1.09.2-en16931', main: 'FACTUR-X_EN16931.xsd' },
};
const EN16931_UBL: RuleSet = {
  name: 'EN 16931 UBL Schematron (CEN)',
  version: '1.3.15',
  schematron: 'EN16931-UBL.indexed',
};
const EN16931_CII: RuleSet = {
  name: 'EN 16931 CII Schematron (CEN)',
  version: '1.3.15',
  schematron: 'EN16931-CII.indexed',
};
const XRECHNUNG_UBL: RuleSet = {
  name: 'XRechnung UBL Schematron (KoSIT)',
  version: '2.5.0',
  schematron: 'XRechnung-UBL',
};
const XRECHNUNG_CII: RuleSet = {
  name: 'XRechnung CII Schematron (KoSIT)',
  version: '2.5.0',
  schematron: 'XRechnung-CII',
};
const FACTURX: RuleSet = {
  name: 'Factur-X EN 16931 Schematron (FNFE/FeRD)',
  version: '1.09.2',
  schematron: 'FACTUR-X_EN16931.indexed',
};

/** Rule id → level overrides of the KoSIT validator's scenario (empty outside XRechnung). */
export type Levels = Readonly<Record<string, 'error' | 'warning' | 'information'>>;

/**
 * The checks of a kind, in the order `einvoice-rules/README.md` gives (XSD, then EN 16931, then the
 * CIUS or profile rules), for a UBL root `Invoice` or `CreditNote` where that matters.
 */
export function checksOf(kind: EInvoiceKind, creditNote: boolean): { ruleSets: RuleSet[]; levels: Levels } {
  const ubl = creditNote ? UBL_CREDIT_NOTE : UBL_INVOICE;
  switch (kind) {
    case 'xrechnung-ubl':
      return {
        ruleSets: [ubl, EN16931_UBL, XRECHNUNG_UBL],
        levels: scenarioLevels(creditNote ? 'xrechnung-ubl-creditnote' : 'xrechnung-ubl-invoice'),
      };
    case 'xrechnung-cii':
      return { ruleSets: [CII, EN16931_CII, XRECHNUNG_CII], levels: scenarioLevels('xrechnung-cii') };
    case 'facturx-cii':
      return { ruleSets: [FACTURX_XSD, CII, FACTURX, EN16931_CII], levels: {} };
    case 'en16931-ubl':
      return { ruleSets: [ubl, EN16931_UBL], levels: {} };
    case 'en16931-cii':
      return { ruleSets: [CII, EN16931_CII], levels: {} };
  }
}

/**
 * What an XML looks like it is: UBL (`Invoice`/`CreditNote`) or CII, XRechnung when its
 * CustomizationID / guideline names it; a CII without XRechnung is checked as Factur-X EN 16931 (the
 * stricter superset of plain EN 16931 CII). Undefined for anything else.
 */
export function detectEInvoiceKind(xml: string): EInvoiceKind | undefined {
  const head = xml.slice(0, 4000);
  const xrechnung = /xeinkauf\.de:kosit:xrechnung/.test(head);
  if (
    /<(?:[A-Za-z0-9_-]+:)?(?:Invoice|CreditNote)[\s>]/.test(head) &&
    /ubl:schema:xsd:(?:Invoice|CreditNote)-2/.test(head)
  ) {
    return xrechnung ? 'xrechnung-ubl' : 'en16931-ubl';
  }
  if (/CrossIndustryInvoice:100/.test(head)) return xrechnung ? 'xrechnung-cii' : 'facturx-cii';
  return undefined;
}

/** Every compiled Schematron the kinds use (to warm them up). */
export const SCHEMATRON_NAMES = [
  'EN16931-UBL.indexed',
  'EN16931-CII.indexed',
  'XRechnung-UBL',
  'XRechnung-CII',
  'FACTUR-X_EN16931.indexed',
];

/** Each derived rule set → the official one it must answer exactly like (the build compiles both). */
export const OFFICIAL_SCHEMATRON: Readonly<Record<string, string>> = {
  'EN16931-UBL.indexed': 'EN16931-UBL',
  'EN16931-CII.indexed': 'EN16931-CII',
  'FACTUR-X_EN16931.indexed': 'FACTUR-X_EN16931',
};
