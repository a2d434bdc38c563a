// The tracker as a site owner uses it: a page on another origin embeds /a/script.js with the property's
// public id; a person opens it in chromium and clicks a button; the page view and the custom event show
// up in analytics.events.read and in the stats, sent with sendBeacon and no cookie.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingClient } from './helpers/billing.js';
import { browserUnavailable, launchBrowser } from './helpers/browser.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { waitUntil } from './helpers/mail-sink.js';

const gateway = useGateway();
let agent: ReturnType<typeof billingClient>;
let ingestionId: string;
let site: Server;
let siteUrl: string;
// Headless chromium says "HeadlessChrome", which the bot filter drops like any headless crawler; the
// person in this test uses an ordinary desktop browser.
const DESKTOP_CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

beforeAll(async () => {
  agent = billingClient(gateway, (await approvedInstallation(gateway, '10')).key);
  const created = await agent.run('analytics.property.manage', {
    operation: 'create',
    name: 'Local site',
    domains: ['localhost'],
  });
  ingestionId = (created.property as { ingestion_id: string }).ingestion_id;
  site = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html><head><title>Shop</title>
<script defer src="${gateway.url}/a/script.js" data-id="${ingestionId}"></script></head>
<body><h1>Shop</h1><button id="signup" onclick="agw('signup', {plan: 'pro'})">Sign up</button></body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => site?.close(resolve));
});

describe.skipIf(browserUnavailable)(`the tracker in chromium ${browserUnavailable ?? ''}`, () => {
  it('is under 2 KB and sends a page view and a custom event that show in events and stats', async () => {
    const script = await fetch(`${gateway.url}/a/script.js`);
    expect(script.headers.get('content-type')).toContain('javascript');
    expect(Buffer.byteLength(await script.text())).toBeLessThan(2048);

    const browser = await launchBrowser();
    try {
      const context = await browser.newContext({ userAgent: DESKTOP_CHROME });
      const page = await context.newPage();
      await page.goto(`${siteUrl}/pricing?ref=newsletter`);
      const events = () => agent.run('analytics.events.read', { limit: 10 });
      const pageview = await waitUntil(async () =>
        (await events()).events.find((event) => event.name === 'pageview'),
      );
      expect(pageview).toMatchObject({ host: 'localhost', path: '/pricing', referrer_host: null });
      await page.click('#signup');
      const signup = await waitUntil(async () =>
        (await events()).events.find((event) => event.name === 'signup'),
      );
      expect(signup).toMatchObject({
        path: '/pricing',
        properties: { plan: 'pro' },
        visitor_id: pageview.visitor_id,
      });
      expect(await context.cookies()).toEqual([]);
    } finally {
      await browser.close();
    }
    const stats = await agent.run('analytics.stats.read', {});
    expect(stats.totals).toMatchObject({ visitors: 1, visits: 1, pageviews: 1, events: 2 });
    expect(stats.top_pages).toEqual([{ path: '/pricing', pageviews: 1, visitors: 1 }]);
    expect(stats.top_referrers).toEqual([{ referrer: '(direct)', visits: 1, visitors: 1 }]);
  }, 60_000);
});
