// Issue 27, finding 9: `npm start` builds every package with AGW_SKIP_DTS=1 (JavaScript only, fast),
// and tsup's clean deleted the declarations `npm run build` had made, so an editor lost the packages'
// types at every start. Each package's start build runs here into a folder holding a declaration and a
// stale chunk: the declaration must stay, the stale JavaScript must go.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');
const tsup = join(root, 'node_modules', 'tsup', 'dist', 'cli-default.js');
const out = mkdtempSync(join(tmpdir(), 'agw-start-build-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("npm start's build", () => {
  it.each([
    'packages/contracts',
    'packages/guard',
    'packages/client',
    'packages/capabilities',
    'apps/gateway',
  ])('keeps the declarations of %s and replaces its JavaScript', (pkg) => {
    const dist = join(out, pkg.replace('/', '-'));
    mkdirSync(dist, { recursive: true });
    writeFileSync(join(dist, 'index.d.ts'), 'export declare const built: true;\n');
    writeFileSync(join(dist, 'index.d.cts'), 'export declare const built: true;\n');
    writeFileSync(join(dist, 'chunk-STALE.js'), '');
    execFileSync(process.execPath, [tsup, '--out-dir', dist, '--silent'], {
      cwd: join(root, pkg),
      env: { ...process.env, AGW_SKIP_DTS: '1' },
      stdio: 'pipe',
    });
    const files = readdirSync(dist);
    expect(files).toEqual(expect.arrayContaining(['index.d.ts', 'index.d.cts', 'index.js', 'index.cjs']));
    expect(existsSync(join(dist, 'chunk-STALE.js'))).toBe(false);
  });
});
