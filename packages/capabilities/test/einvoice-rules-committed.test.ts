// Issue 27, finding 9: compiling the e-invoice rules took most of a fresh clone's first `npm start`
// (≈70 of 85 s), so the compiled SEFs are committed. They are generated files: this keeps them what
// their sources (the Schematron XSLT, the derive script, the SaxonJS version) compile to, and committed.

import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const packageDir = join(import.meta.dirname, '..');
const sefDir = join(packageDir, 'einvoice-rules', 'sef');

describe('the compiled e-invoice rules', () => {
  it("are compiled from today's sources: the build has nothing to compile", () => {
    const check = spawnSync(process.execPath, ['scripts/compile-einvoice-rules.mjs', '--check'], {
      cwd: packageDir,
      encoding: 'utf8',
    });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it('are committed as they are (a clone has them; a rebuilt rule set must be committed)', () => {
    const generated = readdirSync(sefDir).filter((file) => /\.(sef\.json|stamp)$/.test(file));
    expect(generated).toHaveLength(16);
    const tracked = execFileSync('git', ['ls-files', '--', ...generated], { cwd: sefDir, encoding: 'utf8' });
    expect(tracked.trim().split('\n').sort()).toEqual([...generated].sort());
    const changed = execFileSync('git', ['status', '--porcelain', '--', ...generated], {
      cwd: sefDir,
      encoding: 'utf8',
    });
    expect(changed).toBe('');
  });
});
