import { type Command, Option } from 'commander';
import { accessInvite, accessInvites, accessSetMode, accessShow } from './commands/access.js';
import {
  APPROVAL_STATUSES,
  installationsApprove,
  installationsBlock,
  installationsList,
  installationsShow,
} from './commands/installations.js';
import { mailList, mailShow, mailSuppress, mailSuppressions, mailUnsuppress } from './commands/mail.js';
import { operatorKeyCreate, operatorKeyList, operatorKeyRevoke } from './commands/operator-keys.js';
import { orgsActivate, orgsDeactivate, orgsList } from './commands/orgs.js';
import type { CommandContext } from './context.js';
import { registerAuditCommands } from './program-audit.js';
import { registerBudgetCommands } from './program-budget.js';

const CONNECTION_HELP = `
Connection: the gateway is --url, else AGW_URL, else the running \`agw serve\` (its state file
$XDG_STATE_HOME/agw/serve.json), else http://127.0.0.1:8080; the operator key is AGW_OPERATOR_KEY, else
DATA_DIR/operator.key (DATA_DIR from --data-dir, env DATA_DIR, the running agw serve, default ./.data).
Exit codes: 0 ok, 1 unexpected, 2 usage/config, 3 auth (401/403), 4 conflict/precondition (409/412),
5 other gateway error or gateway unreachable.`;

/** Adds --url, --data-dir and --json to an operator command. */
function operatorCommand(parent: Command, name: string, description: string, examples: string[]): Command {
  return parent
    .command(name)
    .description(description)
    .option(
      '--url <url>',
      'gateway address (env AGW_URL, then the running agw serve, default http://127.0.0.1:8080)',
    )
    .option(
      '-d, --data-dir <dir>',
      'data directory holding operator.key (env DATA_DIR, then the running agw serve, default ./.data)',
    )
    .option('--json', 'print JSON for scripts instead of a table')
    .addHelpText(
      'after',
      `\nExamples:\n${examples.map((example) => `  $ ${example}`).join('\n')}\n${CONNECTION_HELP}`,
    );
}

function group(parent: Command, name: string, description: string, examples: string[]): Command {
  return parent
    .command(name)
    .description(description)
    .addHelpText('after', `\nExamples:\n${examples.map((example) => `  $ ${example}`).join('\n')}`);
}

/** Registers the operator command tree (installations, orgs, access, mail, operator key). */
export function registerOperatorCommands(program: Command, context: CommandContext): void {
  const installations = group(
    program,
    'installations',
    'review and decide installations waiting for approval',
    ['agw installations list --status pending', 'agw installations approve 0b6c…'],
  );
  operatorCommand(
    installations,
    'list',
    'list installations, oldest first: organization, app, owner and agent mail verification, age',
    ['agw installations list', 'agw installations list --status pending --json'],
  )
    .addOption(new Option('-s, --status <status>', 'only this approval status').choices(APPROVAL_STATUSES))
    .action((flags) => installationsList(flags, context));
  operatorCommand(installations, 'show', 'show every field of one installation', [
    'agw installations show 0b6c5c1e-0000-4000-8000-000000000000',
  ])
    .argument('<id>', 'installation id')
    .action((id: string, flags) => installationsShow(id, flags, context));
  operatorCommand(
    installations,
    'approve',
    'approve an installation (only once its owner code and agent mailbox are verified)',
    ['agw installations approve 0b6c5c1e-0000-4000-8000-000000000000'],
  )
    .argument('<id>', 'installation id')
    .action((id: string, flags) => installationsApprove(id, flags, context));
  operatorCommand(installations, 'block', 'block an installation: it gets 403 on everything operational', [
    'agw installations block 0b6c5c1e-0000-4000-8000-000000000000',
  ])
    .argument('<id>', 'installation id')
    .action((id: string, flags) => installationsBlock(id, flags, context));

  registerBudgetCommands(program, context, { operatorCommand, group });
  registerAuditCommands(program, context, { operatorCommand, group });

  const orgs = group(program, 'orgs', 'list, activate or deactivate organizations', [
    'agw orgs list',
    'agw orgs deactivate <org-id>',
  ]);
  operatorCommand(
    orgs,
    'list',
    'list organizations by name with wallet balance, spend today and this month, caps and kill switch',
    ['agw orgs list', 'agw orgs list --limit 500 --json'],
  )
    .option('--limit <n>', 'rows per page, 1 to 500 (default 50)')
    .option('--cursor <cursor>', 'the next page (printed under the table, next_cursor in --json)')
    .action((flags) => orgsList(flags, context));
  operatorCommand(orgs, 'activate', 'activate an organization', ['agw orgs activate 5f0e…'])
    .argument('<org-id>', 'organization id')
    .action((id: string, flags) => orgsActivate(id, flags, context));
  operatorCommand(
    orgs,
    'deactivate',
    'deactivate an organization: its installations get 403 organization_inactive',
    ['agw orgs deactivate 5f0e…'],
  )
    .argument('<org-id>', 'organization id')
    .action((id: string, flags) => orgsDeactivate(id, flags, context));

  const access = group(
    program,
    'access',
    'registration access during the beta: open (default) or invite-only',
    ['agw access show', 'agw access invite-only && agw access invite owner@example.com'],
  );
  operatorCommand(access, 'show', 'print the registration mode', ['agw access show --json']).action((flags) =>
    accessShow(flags, context),
  );
  operatorCommand(access, 'open', 'let anyone register (operator approval still applies)', [
    'agw access open',
  ]).action((flags) => accessSetMode('open', flags, context));
  operatorCommand(access, 'invite-only', 'let only invited owner emails register', [
    'agw access invite-only',
  ]).action((flags) => accessSetMode('invite_only', flags, context));
  operatorCommand(access, 'invite', 'invite an owner email', ['agw access invite owner@example.com'])
    .argument('<email>', 'owner email to invite')
    .action((email: string, flags) => accessInvite(email, flags, context));
  operatorCommand(access, 'invites', 'list invitations', ['agw access invites --json']).action((flags) =>
    accessInvites(flags, context),
  );

  const mail = group(program, 'mail', 'read the dev mailbox and manage the mail suppression list', [
    'agw mail list',
    'agw mail show 2026-11-22T05-50-00.000Z-abc',
    'agw mail suppress bounced@example.com --reason bounce',
  ]);
  mail
    .command('list')
    .description('list the dev mailbox (DATA_DIR/mail/*.eml, written when SMTP_URL is unset), oldest first')
    .option(
      '-d, --data-dir <dir>',
      'data directory (env DATA_DIR, then the running agw serve, default ./.data)',
    )
    .option('--json', 'print JSON for scripts')
    .addHelpText('after', '\nExamples:\n  $ agw mail list\n  $ agw mail list --data-dir /var/lib/agw --json')
    .action((flags) => mailList(flags, context));
  mail
    .command('show')
    .description('print the headers and text body of one dev-mailbox message')
    .argument('<id>', 'message id from `agw mail list` (or a unique part of it)')
    .option(
      '-d, --data-dir <dir>',
      'data directory (env DATA_DIR, then the running agw serve, default ./.data)',
    )
    .option('--json', 'print JSON for scripts')
    .addHelpText(
      'after',
      '\nExamples:\n  $ agw mail show 2026-11-22T05-50-00.000Z-abc\n  $ agw mail show abc --json',
    )
    .action((id: string, flags) => mailShow(id, flags, context));
  operatorCommand(mail, 'suppress', 'stop mailing an address (its codes report delivery "suppressed")', [
    'agw mail suppress bounced@example.com --reason bounce',
  ])
    .argument('<email>', 'address to suppress')
    .option('--reason <reason>', 'why (default "operator")')
    .action((email: string, flags) => mailSuppress(email, flags, context));
  operatorCommand(mail, 'unsuppress', 'mail an address again', ['agw mail unsuppress bounced@example.com'])
    .argument('<email>', 'address to remove from the list')
    .action((email: string, flags) => mailUnsuppress(email, flags, context));
  operatorCommand(mail, 'suppressions', 'list suppressed addresses', ['agw mail suppressions']).action(
    (flags) => mailSuppressions(flags, context),
  );

  const operator = group(program, 'operator', 'operator credentials', ['agw operator key list']);
  const key = group(operator, 'key', 'create, list and revoke operator keys', [
    'agw operator key create --label alice',
    'agw operator key revoke AbCdEf123456',
  ]);
  operatorCommand(key, 'create', 'create an operator key; its token is printed once', [
    'agw operator key create --label alice',
    'DATABASE_URL=postgres://agw@127.0.0.1:5432/agw agw operator key create --database --label bootstrap',
  ])
    .option('--label <label>', 'a name to recognise the key by')
    .option('--database', 'write straight to DATABASE_URL (PostgreSQL) without a running gateway')
    .action((flags) => operatorKeyCreate(flags, context));
  operatorCommand(key, 'list', 'list operator keys: prefix, label, status, created, last used', [
    'agw operator key list',
  ]).action((flags) => operatorKeyList(flags, context));
  operatorCommand(key, 'revoke', 'revoke an operator key (not the last active one)', [
    'agw operator key revoke AbCdEf123456',
  ])
    .argument('<prefix>', 'the key prefix shown by `agw operator key list`')
    .action((prefix: string, flags) => operatorKeyRevoke(prefix, flags, context));
}
