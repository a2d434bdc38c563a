// Every walk-through of /llms.txt runs as written (issue 28, finding 3): each `http` block of a
// "## Walk-through: <domain>" section, in order, sent as the text writes it — request line, headers,
// body — with only the text's `$NAME` values filled in: $KEY (an approved installation's key, its wallet
// credited) and what the `→` lines of earlier blocks name from their answers. Each block's answer must
// have the status its `→` line promises and every value it names. A `⏸ The operator approves $NAME`
// line is the operator's step: the test approves through the admin API, which the text never shows.

import { beforeAll, describe, expect, it } from 'vitest';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { readDevMailbox, waitUntil } from './helpers/mail-sink.js';

const gateway = useGateway();
// biome-ignore lint/suspicious/noExplicitAny: answers are JSON checked by the assertions below.
type Json = any;

let text: string;
let base: string;
beforeAll(async () => {
  text = await (await fetch(`${gateway.url}/llms.txt`)).text();
  base = /Base URL: (\S+)/.exec(text)?.[1] ?? '';
  expect(base).not.toBe('');
});

/** One `http` block and the line after it, or the operator's approval of the value `approves` names. */
type Step = HttpStep | { readonly approves: string };

interface HttpStep {
  readonly method: string;
  readonly url: string;
  readonly headers: ReadonlyArray<[string, string]>;
  readonly body: string | undefined;
  readonly status: number;
  /** `$NAME = path` of the `→` line. */
  readonly bindings: ReadonlyArray<[name: string, path: string]>;
}

/** The steps of the `## Walk-through: <domain>` section, in order. */
function walkThrough(domain: string): Step[] {
  const start = text.indexOf(`## Walk-through: ${domain}`);
  expect(start, domain).toBeGreaterThanOrEqual(0);
  const end = text.indexOf('\n## ', start + 3);
  const section = text.slice(start, end === -1 ? undefined : end);
  const steps = /```http\n([\s\S]*?)\n```\n→ ([^\n]*)|^⏸ The operator approves \$([A-Z_]+)/gm;
  return [...section.matchAll(steps)].map(([, block, answer, approves]): Step => {
    if (approves !== undefined) return { approves };
    const [head = '', body] = (block as string).split(/\n\n/, 2) as [string, string | undefined];
    const [requestLine = '', ...headerLines] = head.split('\n');
    const [method = '', url = ''] = requestLine.split(' ');
    const headers = headerLines.map((line): [string, string] => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon), line.slice(colon + 1).trim()];
    });
    const status = Number(/^\d{3}/.exec(answer as string)?.[0]);
    const bindings = [...(answer as string).matchAll(/\$([A-Z_]+) = ([\w.]+)/g)].map(
      ([, name, path]): [string, string] => [name as string, path as string],
    );
    return { method, url, headers, body, status, bindings };
  });
}

function pick(json: Json, path: string): unknown {
  return path.split('.').reduce((value, segment) => value?.[segment], json);
}

/** Runs a walk-through's steps in order; the values its `→` lines named. */
async function walk(
  domain: string,
  key: string,
  again: (step: HttpStep, values: Record<string, unknown>) => boolean = () => false,
): Promise<Record<string, unknown>> {
  const steps = walkThrough(domain);
  expect(steps.length, domain).toBeGreaterThanOrEqual(3);
  const values: Record<string, unknown> = { KEY: key };
  const fill = (written: string) =>
    written.replace(/\$([A-Z_]+)/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
  for (const step of steps) {
    if ('approves' in step) {
      const approved = await fetch(`${gateway.url}/admin/approvals/${values[step.approves]}/approve`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.operatorKey}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(approved.status, `${domain}: the operator approves ${step.approves}`).toBe(200);
      continue;
    }
    const url = fill(step.url).replace(base, gateway.url);
    const body = step.body === undefined ? undefined : fill(step.body);
    const headers = step.headers.map(([name, value]): [string, string] => [name, fill(value)]);
    const label = `${domain}: ${step.method} ${step.url} ${step.body ?? ''}`;
    for (const sent of [url, body ?? '', ...headers.map(([, value]) => value)]) {
      expect(sent, label).not.toMatch(/\$[A-Z_]{2,}/);
    }
    for (;;) {
      const response = await fetch(url, { method: step.method, headers, body });
      const answer = await response.text();
      expect(response.status, `${label}\n${answer}`).toBe(step.status);
      const json = response.headers.get('content-type')?.includes('json') ? JSON.parse(answer) : undefined;
      // A token the operator approved is spent, not asked about again: 200 alone would let an
      // unapproved token pass.
      if (body?.includes('"approval_token"')) {
        expect(json?.status, `${label}: the approved token ran\n${answer}`).not.toBe('pending_approval');
      }
      for (const [name, path] of step.bindings) {
        values[name] = pick(json, path);
        expect(values[name], `${label}: ${name} = ${path}\n${answer}`).toBeDefined();
      }
      if (!again(step, values)) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  return values;
}

describe('/llms.txt walk-throughs run as written', () => {
  it('billing: quote to cash, the Factur-X, the mail, the payment', async () => {
    const { key } = await approvedInstallation(gateway, '10');
    const values = await walk('billing', key);
    const year = new Date().getUTCFullYear();
    expect(values.NUMBER).toBe(`RE-${year}-00001`);
    const mail = await waitUntil(async () =>
      (await readDevMailbox(gateway.dataDir)).find((m) => m.to.includes('ap@muster.example')),
    );
    expect(mail.subject).toContain(String(values.NUMBER));
    expect(values.STATUS).toBe('paid');
    expect(values.BALANCE).toBe(0);
  }, 120_000);

  it('calendar: hours, a link, its page, a booking, the booking listed', async () => {
    const { key } = await approvedInstallation(gateway);
    const values = await walk('calendar', key);
    expect(values.LINK_URL).toMatch(/^https?:\/\/.+\/book\//);
    expect(values.LISTED_ID).toBe(values.BOOKING_ID);
  });

  it('analytics: a property, the tracker, an event, the stats', async () => {
    const { key } = await approvedInstallation(gateway);
    // The stats step is read again while the event is on its way to the database, as the text says.
    const values = await walk(
      'analytics',
      key,
      (step, known) => step.body?.includes('analytics.stats.read') === true && known.PAGEVIEWS === 0,
    );
    expect(values.INGESTION_ID).toEqual(expect.any(String));
    expect(text).toContain(`src="${base}/a/script.js" data-id="$INGESTION_ID"`);
    expect(values.ACCEPTED).toBe(1);
    expect(values.PAGEVIEWS).toBe(1);
  });

  it('assist: save, a new version, read', async () => {
    const { key } = await approvedInstallation(gateway);
    const values = await walk('assist', key);
    expect(values.VERSION).toBe(2);
    expect(values.CONTENT_VERSION).toBe(2);
  });

  it('lists the public routes and says when 412 is answered', () => {
    const discovery = text.slice(text.indexOf('## Discovery'), text.indexOf('## Onboarding'));
    for (const route of [
      '/book/{slug}',
      '/book/{slug}/slots',
      '/book/{slug}/bookings',
      '/a/events',
      '/a/script.js',
    ]) {
      expect(discovery).toContain(`${base}${route}`);
    }
    expect(text).toMatch(/answers 200, and installation\.operator_approval_status is `pending`/);
    expect(text).not.toContain(
      'Until approval (and before the codes are redeemed) the\n   gateway answers 412',
    );
  });
});
