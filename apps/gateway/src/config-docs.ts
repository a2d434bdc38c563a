import { type CapabilityDomain, capabilityDomains } from '@agw/capabilities';
import { settingDefault, settingExpectation } from '@agw/contracts';
import { configurationSchemas } from './config.js';

/** The first line of docs/configuration.md: the file is rendered, not written by hand. */
export const CONFIGURATION_DOC_MARKER =
  '<!-- generated from the settings schemas by `node --conditions=@agw/source --import tsx scripts/config-table.ts`; do not edit (apps/gateway/test/config-docs.test.ts fails when it drifts) -->';

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/**
 * docs/configuration.md: every variable of the gateway and of each domain, from their schemas
 * (src/config-schema.ts and each domain's `settings`), one table per owner.
 */
export function configurationDoc(domains: readonly CapabilityDomain[] = capabilityDomains): string {
  const sections = configurationSchemas(domains).map(({ owner, schema }) => {
    const rows = Object.entries(schema.properties).map(([name, setting]) => {
      // A constant default as code; otherwise the setting's words for what unset means.
      const shownDefault =
        setting.default === ''
          ? 'empty'
          : setting.default !== undefined
            ? `\`${setting.default}\``
            : (settingDefault(setting) ?? 'unset');
      return `| \`${name}\` | ${cell(shownDefault)} | ${cell(settingExpectation(setting))} | ${cell(setting.description ?? '')} |`;
    });
    const title = owner === 'gateway' ? 'Gateway' : `Domain \`${owner}\``;
    return [
      `## ${title}`,
      '',
      '| variable | default | allowed | meaning |',
      '|---|---|---|---|',
      ...rows,
    ].join('\n');
  });
  return `${[
    CONFIGURATION_DOC_MARKER,
    '',
    '# Configuration',
    '',
    'The gateway reads its configuration from the environment at start: its own variables and those each',
    'domain declares in its folder (`settings` of the domain). Every value is checked against its schema',
    'before anything starts; a bad one stops the start with one line naming the variable, what is wrong',
    'and what is allowed, e.g. `PORT must be an integer from 0 to 65535 (got "abc")` (`agw serve` exits',
    '2). A blank variable counts as unset. `agw serve --port/--host/--data-dir` win over `PORT`, `HOST`',
    'and `DATA_DIR`. Passwords in connection strings and `SECRET_KEY` are never printed.',
    '',
    "The gateway's schema is `apps/gateway/src/config-schema.ts`. A domain declares its variables in its",
    'folder (`settings.ts`, the `settings` of its `CapabilityDomain`, built with `Setting` and',
    '`settingsSchema` of `@agw/contracts`); the gateway validates them with its own and hands the values',
    'to the domain as `host.settings`: a domain never reads the environment itself, and no two owners',
    'declare the same variable. Integers and booleans are read from their text by ajv (`true`/`false`',
    'only); a variable without a fixed default says what unset means.',
    '',
    ...sections.flatMap((section) => [section, '']),
  ].join('\n')}`;
}
