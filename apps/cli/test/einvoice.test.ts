// `agw einvoice validate` as an accountant or an agent's operator uses it on a file: a valid XRechnung
// exits 0 naming the rule sets it passed, a broken one exits 8 naming the broken rules, a file that is
// no e-invoice exits 2 with what to do, and --json gives the report to scripts. A file over 20 MB, and
// checks that run out of memory, exit 2 with one line (issue 26, finding 9: a 50 MB file ended in a stack
// trace and exit 1).

import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

/** A UBL invoice of about `megabytes` MB: the official sample with its invoice line repeated. */
function invoiceOf(megabytes: number): string {
  const xml = readFileSync(sample('01.01a-INVOICE_ubl.xml'), 'utf8');
  const start = xml.indexOf('<cac:InvoiceLine>');
  const end = xml.lastIndexOf('</cac:InvoiceLine>') + '</cac:InvoiceLine>'.length;
  const line = xml.slice(start, end);
  return (
    xml.slice(0, start) + line.repeat(Math.ceil((megabytes * 1024 * 1024) / line.length)) + xml.slice(end)
  );
}

describe('agw einvoice validate on a file too big for it', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'agw-einvoice-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  /** stderr is one line and carries no stack. */
  const expectOneLine = (stderr: string) => {
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).not.toMatch(/\n\s+at /);
  };

  it('refuses an invoice over 20 MB with exit 2, before reading it', async () => {
    const file = join(folder, 'huge-invoice.xml');
    await writeFile(file, invoiceOf(21));
    const result = await runCli(['einvoice', 'validate', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('larger than 20 MB');
    expectOneLine(result.stderr);
  }, 60_000);

  it('answers checks that run out of memory with exit 2 and the setting to raise', async () => {
    const file = join(folder, 'big-invoice.xml');
    await writeFile(file, invoiceOf(5));
    const result = await runCli(['einvoice', 'validate', file], { AGW_EINVOICE_MAX_MEMORY_MB: '32' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ran out of memory (32 MB); raise AGW_EINVOICE_MAX_MEMORY_MB');
    expectOneLine(result.stderr);
  }, 60_000);
});
