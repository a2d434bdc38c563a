import { SCHEMATRON_NAMES } from './profiles.js';
import { loadSchematron, runSchematron } from './schematron.js';
import { xsdErrors } from './xsd.js';

/** The smallest documents each rule set accepts as input: enough to prepare it, not to pass it. */
const UBL = '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>';
const CII =
  '<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>';

let warming: Promise<void> | undefined;

/**
 * Readies the validator once per process: parses every compiled Schematron (the largest SEF is
 * 6.8 MB of JSON), runs each once so SaxonJS has prepared it, and starts the xmllint worker with
 * every schema folder loaded and its wasm compiled. The first validation of the process starts it, so
 * a gateway that never makes an e-invoice does not pay its ≈160 MiB; concurrent ones wait for the same
 * warm-up. A failed warm-up (e.g. the rules were never compiled) is retried by the next caller, which
 * then sees the error.
 */
export function warmUpEInvoiceValidation(): Promise<void> {
  warming ??= (async () => {
    await loadSchematron(SCHEMATRON_NAMES);
    await Promise.all([
      xsdErrors(UBL, 'ubl-2.1', 'maindoc/UBL-Invoice-2.1.xsd'),
      xsdErrors(UBL, 'ubl-2.1', 'maindoc/UBL-CreditNote-2.1.xsd'),
      xsdErrors(CII, 'cii-d16b', 'CrossIndustryInvoice_100pD16B.xsd'),
      xsdErrors(CII, 'facturx-1.09.2-en16931', 'FACTUR-X_EN16931.xsd'),
      (async () => {
        for (const name of SCHEMATRON_NAMES) await runSchematron(name, name.includes('UBL') ? UBL : CII);
      })(),
    ]);
  })().catch((error: unknown) => {
    warming = undefined;
    throw error;
  });
  return warming;
}
