// Pins docs/errors.md to the error table in src/errors.ts, in both directions: every code is documented
// with its status and retryability, and the page documents no code the gateway does not have.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorCodes } from '../src/index.js';

const page = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
const documented = new Map(
  [...page.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| (yes|no) \|/gm)].map(
    ([, code = '', status, retryable]) => [code, { status: Number(status), retryable: retryable === 'yes' }],
  ),
);

describe('docs/errors.md', () => {
  it('documents every error code with its status and retryability', () => {
    for (const [code, info] of Object.entries(errorCodes)) {
      expect(documented.get(code), code).toEqual({ status: info.status, retryable: info.retryable });
    }
  });

  it('documents no code the gateway does not have', () => {
    expect([...documented.keys()].filter((code) => !Object.hasOwn(errorCodes, code))).toEqual([]);
  });
});
