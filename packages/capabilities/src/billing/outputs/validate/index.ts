import { CapabilityError } from '../../../define.js';
import type { ValidationReport } from '../rendering.js';
import { checksOf, type EInvoiceKind, type RuleSet } from './profiles.js';
import { withoutSaxonJsArtefacts } from './saxonjs-artefacts.js';
import { parseForRules, runSchematron } from './schematron.js';
import { warmUpEInvoiceValidation } from './warm-up.js';
import { xsdErrors } from './xsd.js';

export { detectEInvoiceKind, EINVOICE_KINDS, type EInvoiceKind, SCHEMATRON_NAMES } from './profiles.js';
export { loadSchematron } from './schematron.js';
export { warmUpEInvoiceValidation } from './warm-up.js';

/** One finding of a validation: the rule (or `XSD`), its level after the scenario's overrides, where. */
export interface ValidationFinding {
  readonly rule: string;
  readonly level: 'error' | 'warning' | 'information';
  readonly message: string;
  readonly location?: string;
  readonly rule_set: string;
}

/** A Schematron flag as a level: fatal/error and the Factur-X rules' empty flag are errors. */
function levelOf(flag: string): ValidationFinding['level'] {
  if (flag === 'warning') return 'warning';
  if (flag === 'information') return 'information';
  return 'error';
}

/**
 * Checks `xml` as `kind` in process: the XSD (xmllint-wasm), then the official Schematron rule sets
 * (SaxonJS, compiled once by the package build) in their order, with the KoSIT validator's severity
 * overrides for XRechnung. Valid means no error-level finding; warnings and information are reported.
 * Every rule set runs even after an error, so one call names everything to fix; after a schema error
 * only the schema errors are reported.
 */
export async function validateEInvoice(xml: string, kind: EInvoiceKind): Promise<ValidationReport> {
  // Readied once per process, on first use: the first document waits for the warm-up (≈1 s).
  await warmUpEInvoiceValidation();
  const creditNote = /<(?:[A-Za-z0-9_-]+:)?CreditNote[\s>]/.test(xml.slice(0, 2000));
  const { ruleSets, levels } = checksOf(kind, creditNote);
  // xmllint-wasm runs in a worker thread: the schemas are checked while SaxonJS runs the rules here.
  const schemaChecks = ruleSets
    .filter((ruleSet) => ruleSet.xsd !== undefined)
    .map(async (ruleSet): Promise<[RuleSet, ValidationFinding[]]> => {
      const { folder, main } = ruleSet.xsd as NonNullable<RuleSet['xsd']>;
      const errors = await xsdErrors(xml, folder, main);
      return [
        ruleSet,
        errors.map((message) => ({ rule: 'XSD', level: 'error', message, rule_set: ruleSet.name })),
      ];
    });
  const ruleChecks: [RuleSet, ValidationFinding[]][] = [];
  // Parsed once for all rule sets; not well-formed, it fails each rule set as before (the schema says why).
  const parsed = await parseForRules(xml).catch(() => xml);
  for (const ruleSet of ruleSets) {
    if (ruleSet.schematron === undefined) continue;
    const found = await runSchematron(ruleSet.schematron, parsed).catch(() => undefined);
    // A document the schema refuses may not even get through the rules; the schema errors say why.
    if (found === undefined) break;
    ruleChecks.push([
      ruleSet,
      withoutSaxonJsArtefacts(found, xml).map((finding) => ({
        rule: finding.id,
        level: levels[finding.id] ?? levelOf(finding.flag),
        message: finding.text,
        location: finding.location,
        rule_set: ruleSet.name,
      })),
    ]);
  }
  const schemaResults = await Promise.all(schemaChecks);
  const schemaValid = schemaResults.every(([, found]) => found.length === 0);
  if (schemaValid && ruleChecks.length < ruleSets.length - schemaResults.length) {
    throw new Error(`The ${kind} rules failed on a schema-valid document.`);
  }
  // After a schema error the rules would only report the same structure again: the schema speaks.
  const results = schemaValid ? [...schemaResults, ...ruleChecks] : schemaResults;
  const findings = results.flatMap(([, found]) => found);
  const errors = findings.filter((finding) => finding.level === 'error');
  return {
    valid: errors.length === 0,
    rule_sets: results.map(([ruleSet, found]) => ({
      name: ruleSet.name,
      version: ruleSet.version,
      fatal: found.filter((finding) => finding.level === 'error').length,
      warnings: found.filter((finding) => finding.level !== 'error').length,
    })),
    warnings: findings
      .filter((finding) => finding.level !== 'error')
      .map((finding) => `${finding.rule} (${finding.level}): ${finding.message}`),
    errors: errors.map((finding) => ({
      rule: finding.rule,
      message: finding.message,
      location: finding.location,
    })),
  };
}

/** Refuses an e-invoice with error-level findings: validation_failed naming each rule. */
export function refuseInvalid(report: ValidationReport): void {
  if (report.valid) return;
  const rules = [...new Set(report.errors.map((error) => error.rule))];
  throw new CapabilityError(
    'validation_failed',
    `The e-invoice breaks ${rules.length === 1 ? 'the official rule' : 'official rules'} ${rules.join(', ')}: ${report.errors[0]?.message ?? ''}`,
    report.errors.map((error) => ({
      schema_pointer: '/params/document_id',
      keyword: error.rule,
      message: error.message,
    })),
  );
}
