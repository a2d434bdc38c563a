import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's chromium (installed by scripts/ensure-test-tools.mjs before `npm test`); CHROMIUM_PATH overrides. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Why browser tests cannot run here, or undefined when they can. Use it at the top of a test file:
 * `describe.skipIf(browserUnavailable)(...)`, and name it in the describe's title so a skip says why.
 */
export const browserUnavailable: string | undefined = existsSync(CHROMIUM_PATH)
  ? undefined
  : `no browser at ${CHROMIUM_PATH} (install Debian's chromium package as root, or set CHROMIUM_PATH)`;

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
