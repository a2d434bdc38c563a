// The billing render pool (issue 26, finding 1): renderings run in worker threads loaded from the
// TypeScript sources here (through tsx), a refusal thrown in a thread arrives as the same CapabilityError,
// and a script that rendered once exits by itself (idle threads never hold the process).

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { renderInPool, useRenderPool } from '../src/billing/outputs/render-pool.js';
import { CapabilityError } from '../src/define.js';
import { frozenDocument, PUBLIC_BUYER } from './fixtures/einvoice-matrix.js';

const release = useRenderPool();
afterAll(() => release());

const lines = [{ name: 'Beratung', quantity: 2, unit_price: 120, tax_percent: 19 }];

describe('the render pool', () => {
  it('renders in a worker thread and answers the bytes as a Buffer', async () => {
    const rendering = await renderInPool('pdf', frozenDocument({ name: 'one line', lines }));
    expect(Buffer.isBuffer(rendering.bytes)).toBe(true);
    expect(rendering.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(rendering.filename).toMatch(/\.pdf$/);
  }, 120_000);

  it('a refusal in the thread arrives as the same CapabilityError, code and violations', async () => {
    const noReference = frozenDocument({
      name: 'no BT-10',
      lines,
      buyer: { ...PUBLIC_BUYER, buyer_reference: null },
    });
    const refused = await renderInPool('xrechnung', noReference).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CapabilityError);
    expect(refused).toMatchObject({ code: 'validation_failed' });
    expect((refused as CapabilityError).violations[0]).toMatchObject({
      schema_pointer: '/params/document_id',
      keyword: 'e-invoice',
    });
    expect((refused as CapabilityError).message).toContain('BT-10');
  }, 120_000);
});

const root = fileURLToPath(new URL('../../..', import.meta.url));
const pool = fileURLToPath(new URL('../src/billing/outputs/render-pool.ts', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/einvoice-matrix.ts', import.meta.url));

describe('a process that rendered a document', () => {
  it('exits on its own after the answer', () => {
    const script = `
      const { renderInPool } = await import(${JSON.stringify(pool)});
      const { frozenDocument } = await import(${JSON.stringify(fixture)});
      const doc = frozenDocument({ name: 'exit', lines: ${JSON.stringify(lines)} });
      const rendering = await renderInPool('pdf', doc);
      console.log('bytes=' + (rendering.bytes.length > 0));
    `;
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--conditions=@agw/source', '--input-type=module', '-e', script],
      { cwd: root, encoding: 'utf8', timeout: 90_000 },
    );
    expect(child.error).toBeUndefined(); // a timeout (ETIMEDOUT) means a thread kept the process alive
    expect(child.stdout.trim()).toBe('bytes=true');
    expect(child.status).toBe(0);
  }, 120_000);
});
