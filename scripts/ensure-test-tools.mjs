// Installs the Debian packages some tests drive, when they are missing: chromium (the booking page and
// the analytics tracker are tested in a real browser through playwright-core), nginx and pgbouncer (the
// fleet test puts them in front of three gateways), qpdf and poppler-utils
// (the PDF checks: `qpdf --check`, `pdffonts`), curl and jq (the walk-throughs that tests run as
// written), redis-server and PostgreSQL 15 (the outage tests start and stop servers of their own). Runs
// before `npm test`, like ensure-deps.mjs. Needs root (apt-get); otherwise, or when the install fails,
// it says which tests will skip and why, and the suite still runs — except in CI (`CI` set), where
// anything missing stops the run: there a test never passes by skipping (tests/helpers/require-tool.ts
// fails it too, naming what is missing; docs/testing.md).
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const tools = [
  { binary: '/usr/bin/chromium', pkg: 'chromium', skips: 'the browser tests (booking page, tracker)' },
  { binary: '/usr/bin/qpdf', pkg: 'qpdf', skips: 'the qpdf --check of generated PDFs' },
  { binary: '/usr/bin/pdffonts', pkg: 'poppler-utils', skips: 'the pdffonts check of generated PDFs' },
  { binary: '/usr/bin/curl', pkg: 'curl', skips: 'the runnable walk-throughs (llms.txt, docs/calendar.md)' },
  { binary: '/usr/bin/jq', pkg: 'jq', skips: 'the docs/calendar.md walk-through test' },
  { binary: '/usr/bin/redis-server', pkg: 'redis-server', skips: 'the Redis outage tests' },
  {
    binary: '/usr/bin/prometheus',
    pkg: 'prometheus',
    skips: 'the Prometheus scrape test and promtool check of deploy/prometheus',
  },
  { binary: '/usr/sbin/nginx', pkg: 'nginx', skips: 'the fleet test (reliability suite, PostgreSQL pass)' },
  {
    binary: '/usr/sbin/pgbouncer',
    pkg: 'pgbouncer',
    skips: 'the fleet test (reliability suite, PostgreSQL pass)',
  },
  {
    binary: '/usr/lib/postgresql/15/bin/pg_ctl',
    pkg: 'postgresql',
    skips: 'the PostgreSQL outage test (reliability suite)',
  },
];

// CI set to anything but '', '0' or 'false' (as tests/helpers/require-tool.ts reads it).
const ci = process.env.CI !== undefined && !/^(|0|false)$/i.test(process.env.CI);
const missing = tools.filter((tool) => !existsSync(tool.binary));
if (missing.length > 0) {
  const packages = missing.map((tool) => tool.pkg).join(' ');
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot) {
    console.error(`Installing ${packages} with apt-get…`);
    try {
      execSync(`apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${packages}`, {
        stdio: 'inherit',
        timeout: 15 * 60 * 1000,
      });
    } catch {
      console.error(`Installing ${packages} failed (see apt-get's message above).`);
    }
  }
  for (const tool of missing.filter((item) => !existsSync(item.binary))) {
    console.error(
      `${tool.binary} is missing (install the Debian package ${tool.pkg} as root): ${tool.skips} will ${ci ? 'fail' : 'be skipped'}.`,
    );
  }
  const stillMissing = missing.filter((tool) => !existsSync(tool.binary));
  if (ci && stillMissing.length > 0) {
    console.error(`CI is set: ${stillMissing.map((tool) => tool.pkg).join(' ')} must be installed.`);
    process.exit(1);
  }
}
