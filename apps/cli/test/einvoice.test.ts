// `agw einvoice validate` as an accountant or an agent's operator uses it on a file: a valid XRechnung
// exits 0 naming the rule sets it passed, a broken one exits 8 naming the broken rules, a file that is
// no e-invoice exits 2 with what to do, and --json gives the report to scripts.

import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

const sample = (file: string) =>
  fileURLToPath(
    new URL(`../../../packages/capabilities/test/fixtures/einvoice-samples/${file}`, import.meta.url),
  );

describe('agw einvoice validate', () => {
  it('passes an official XRechnung sample, naming each rule set', async () => {
    const result = await runCli(['einvoice', 'validate', sample('01.01a-INVOICE_ubl.xml')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('xrechnung-ubl, valid');
    expect(result.stdout).toContain('EN 16931 UBL Schematron (CEN) 1.3.15: 0 error(s)');
    expect(result.stdout).toContain('XRechnung UBL Schematron (KoSIT) 2.5.0: 0 error(s)');
  });

  it('refuses a broken invoice with exit 8 and the broken rules', async () => {
    const file = sample('01.01a-INVOICE_ubl.no-BuyerReference.wrong-PayableAmount.xml');
    const result = await runCli(['einvoice', 'validate', file, '--json']);
    expect(result.code).toBe(8);
    const report = JSON.parse(result.stdout) as { valid: boolean; kind: string; errors: { rule: string }[] };
    expect(report).toMatchObject({ valid: false, kind: 'xrechnung-ubl' });
    expect(report.errors.map((error) => error.rule).sort()).toEqual(['BR-CO-16', 'BR-DE-15']);
    expect(result.stderr).toContain('breaks BR-CO-16, BR-DE-15');
  });

  it('says what to do with a file that is not an e-invoice', async () => {
    const result = await runCli([
      'einvoice',
      'validate',
      fileURLToPath(new URL('../package.json', import.meta.url)),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--as');
  });
});
