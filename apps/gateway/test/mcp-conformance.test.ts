// The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.12, the last release that
// runs on Node 20) against a real gateway on loopback: server-initialize, ping, tools-list and
// dns-rebinding-protection must pass. The scenarios that need fixture tools, resources or prompts
// this product does not have are listed, each with its reason, in mcp-conformance-expected-failures.yml.

import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useGateway } from './helpers/gateway.js';

const gateway = useGateway();
const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const bin = join(dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');
const expectedFailures = join(here, 'mcp-conformance-expected-failures.yml');

/** Runs the suite with `selection` against /mcp; resolves with the exit code and the printed report. */
function conformance(...selection: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, 'server', '--url', `${gateway.url}/mcp`, ...selection, '--expected-failures', expectedFailures],
      { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

describe('MCP conformance', () => {
  for (const scenario of ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection']) {
    it(scenario, { timeout: 90_000 }, async () => {
      const { code, output } = await conformance('--scenario', scenario);
      expect(output).toMatch(/SUCCESS/);
      expect(output).not.toMatch(/FAILURE|WARNING/);
      expect(code, output).toBe(0);
    });
  }

  it('the active suite fails only the scenarios of the expected-failures file', {
    timeout: 90_000,
  }, async () => {
    const { code, output } = await conformance('--suite', 'active');
    expect(output, output).toMatch(/Baseline check passed/);
    expect(code, output).toBe(0);
  });
});
