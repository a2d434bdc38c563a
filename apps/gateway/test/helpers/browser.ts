import { type Browser, chromium } from 'playwright-core';
import { findProgram, requireTool } from '../../../../tests/helpers/require-tool.js';

/** Debian's chromium on PATH (installed by scripts/ensure-test-tools.mjs before `npm test`); CHROMIUM_PATH overrides. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? findProgram('chromium') ?? '/usr/bin/chromium';

/**
 * Why browser tests cannot run here, or undefined when they can; in CI a missing chromium throws
 * (tests/helpers/require-tool.ts). Use it at the top of a test file:
 * `describe.skipIf(browserUnavailable)(...)`, and name it in the describe's title so a skip says why.
 */
export const browserUnavailable: string | undefined = requireTool(process.env.CHROMIUM_PATH ?? 'chromium');

/**
 * Launches headless chromium through playwright-core. The sandbox is off because tests run as root
 * (chromium refuses its sandbox as root); the pages are the gateway's own, served on loopback.
 */
export function launchBrowser(): Promise<Browser> {
  if (browserUnavailable) throw new Error(browserUnavailable);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
    timeout: 30_000,
  });
}
