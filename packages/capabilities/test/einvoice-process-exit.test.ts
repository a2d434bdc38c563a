import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const validator = fileURLToPath(new URL('../src/billing/outputs/validate/index.ts', import.meta.url));
// The workspace root, where `--import tsx` resolves.
const root = fileURLToPath(new URL('../../..', import.meta.url));

// The XSD check runs in a long-lived worker thread: a script or CLI that validates one file must still
// exit by itself once it is done (the worker holds the process only while a check is out).
describe('a process that validates an e-invoice', () => {
  it('exits on its own after the answer, and does not exit before it', () => {
    const script = `
      const { validateEInvoice } = await import(${JSON.stringify(validator)});
      const report = await validateEInvoice('<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>', 'xrechnung-ubl');
      console.log('valid=' + report.valid);
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(child.error).toBeUndefined(); // a timeout (ETIMEDOUT) means the worker kept the process alive
    expect(child.stdout.trim()).toBe('valid=false');
    expect(child.status).toBe(0);
  }, 90_000);
});
