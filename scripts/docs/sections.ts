// The parts of the docs that are facts of the code: the capability list of packages/capabilities/README.md
// (from the registry) and the endpoint and meta-tool tables of docs/interface.md (from the contracts;
// the error table lives in docs/errors.md, kept by the contracts' own test). `npm run docs` writes them between their markers;
// tests/docs/generated-sections.test.ts fails when a file has drifted from what this renders.
import { fileURLToPath } from 'node:url';
import { capabilityDomains } from '../../packages/capabilities/src/index.js';
import { metaTools, operations } from '../../packages/contracts/src/index.js';
import { exportList } from './exports.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface GeneratedSection {
  /** Path from the repository root. */
  readonly file: string;
  /** The marker pair `<!-- generated:NAME -->` … `<!-- /generated:NAME -->` in that file. */
  readonly name: string;
  readonly text: string;
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function table(head: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
  ].join('\n');
}

/** Every domain of the registry and every capability it handles, one table per domain. */
export function capabilityList(): string {
  const total = capabilityDomains.reduce((sum, domain) => sum + domain.handlers.length, 0);
  const parts = [
    `${capabilityDomains.length} domains, ${total} capabilities. Risk decides who must approve a run ` +
      '(`high` and `critical` wait for an operator under the default policy); cost is in credits per ' +
      'successful invoke; a mutating capability needs an idempotency key.',
  ];
  for (const domain of capabilityDomains) {
    const publicSurface = domain.start ? ' It also serves public routes or timed tasks (`start`).' : '';
    parts.push(
      `### ${domain.name}\n\n${domain.handlers.length} capabilities, ${domain.migrations.length} ` +
        `migrations.${publicSurface}\n\n${table(
          ['capability', 'version', 'what it does', 'risk', 'cost', 'mutating'],
          domain.handlers.map(({ contract }) => [
            `\`${contract.id}\``,
            contract.version,
            contract.summary,
            contract.risk_level,
            contract.cost_credits,
            contract.mutating ? 'yes' : 'no',
          ]),
        )}`,
    );
  }
  return parts.join('\n\n');
}

const AUTH: Record<string, string> = {
  none: 'none',
  bootstrap_key: 'bootstrap key',
  installation_key: 'installation key',
  optional_installation_key: 'installation key (optional)',
};

/** The HTTP endpoints of the interface, from the contracts' operation table. */
export function endpointTable(): string {
  return table(
    ['method', 'path', 'key', '`Idempotency-Key`', 'success', 'error statuses', 'what it does'],
    operations.map((op) => [
      op.method,
      `\`${op.path}\``,
      AUTH[op.auth] ?? op.auth,
      op.idempotencyHeader ? 'required' : '—',
      String(op.successStatus),
      op.errorStatuses.join(', '),
      op.summary,
    ]),
  );
}

/** The four meta-tools, from the contracts. */
export function metaToolTable(): string {
  return table(
    ['meta-tool', 'endpoint', 'key', 'what it does'],
    metaTools.map((tool) => [
      `\`${tool.name}\``,
      `${tool.method} \`${tool.path}\``,
      tool.authentication,
      tool.summary,
    ]),
  );
}

/** Each package README's list of every export of its entry points (subpath entries under a heading). */
const PACKAGE_ENTRIES: ReadonlyArray<{ readme: string; entries: ReadonlyArray<[string, string]> }> = [
  {
    readme: 'packages/contracts/README.md',
    entries: [['@agw/contracts', 'packages/contracts/src/index.ts']],
  },
  { readme: 'packages/guard/README.md', entries: [['@agw/guard', 'packages/guard/src/index.ts']] },
  {
    readme: 'packages/capabilities/README.md',
    entries: [['@agw/capabilities', 'packages/capabilities/src/index.ts']],
  },
  {
    readme: 'packages/client/README.md',
    entries: [
      ['@agw/client', 'packages/client/src/index.ts'],
      ['@agw/client/imap', 'packages/client/src/imap/index.ts'],
      ['@agw/client/admin', 'packages/client/src/admin/index.ts'],
    ],
  },
  { readme: 'apps/gateway/README.md', entries: [['@agw/gateway', 'apps/gateway/src/index.ts']] },
];

function packageExports(entries: ReadonlyArray<[string, string]>): string {
  const lists = entries.map(([name, file]) =>
    entries.length === 1 ? exportList(root + file) : `\`${name}\`:\n\n${exportList(root + file)}`,
  );
  return `<details><summary>Every export, by source file</summary>\n\n${lists.join('\n\n')}\n\n</details>`;
}

export function generatedSections(): GeneratedSection[] {
  return [
    ...PACKAGE_ENTRIES.map(({ readme, entries }) => ({
      file: readme,
      name: 'exports',
      text: packageExports(entries),
    })),
    { file: 'packages/capabilities/README.md', name: 'capabilities', text: capabilityList() },
    { file: 'docs/interface.md', name: 'endpoints', text: endpointTable() },
    { file: 'docs/interface.md', name: 'meta-tools', text: metaToolTable() },
  ];
}

const markers = (name: string) => [`<!-- generated:${name} -->`, `<!-- /generated:${name} -->`] as const;

/** The text between the section's markers in `document` (one line break after and before each), or undefined. */
export function readSection(document: string, name: string): string | undefined {
  const [open, close] = markers(name);
  const start = document.indexOf(open);
  const end = document.indexOf(close, start);
  if (start < 0 || end < 0) return undefined;
  return document
    .slice(start + open.length, end)
    .replace(/^\n/, '')
    .replace(/\n$/, '');
}

/** `document` with the section's text replaced; throws when its markers are missing. */
export function writeSection(document: string, name: string, text: string): string {
  const [open, close] = markers(name);
  const start = document.indexOf(open);
  const end = document.indexOf(close, start);
  if (start < 0 || end < 0) throw new Error(`no ${open} … ${close}`);
  return `${document.slice(0, start + open.length)}\n${text}\n${document.slice(end)}`;
}
