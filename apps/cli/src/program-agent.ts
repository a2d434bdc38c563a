import { type Command, Option } from 'commander';
import type { AgentContext } from './agent-context.js';
import { describe } from './commands/describe.js';
import { dryRun } from './commands/dry-run.js';
import { invoke } from './commands/invoke.js';
import { keysRotate } from './commands/keys.js';
import { onboard } from './commands/onboard.js';
import { register } from './commands/register.js';
import { RISK_LEVELS, search } from './commands/search.js';
import { whoami } from './commands/whoami.js';

const AGENT_HELP = `
Credentials: profiles in $XDG_CONFIG_HOME/agw/config.json (default ~/.config/agw/config.json, mode 0600);
AGW_URL and AGW_KEY override the profile's url and key. Keys are never printed unless you ask (--show-key).
Exit codes: 0 ok, 1 unexpected, 2 usage/config (also invalid params JSON), 3 auth (401/403),
4 conflict/precondition (409/412), 5 other gateway error, 6 hand over to a human (blocked, suppressed,
inactive organization, no approval after 15 minutes).`;

/** Adds --profile, --url and --json to an agent command. */
function agentCommand(parent: Command, name: string, description: string, examples: string[]): Command {
  return parent
    .command(name)
    .description(description)
    .option('--profile <name>', 'profile in the config file (default "default")')
    .option(
      '--url <url>',
      'gateway address (env AGW_URL, then the profile, then the running agw serve, default http://127.0.0.1:8080)',
    )
    .option('--json', 'print JSON for scripts')
    .addHelpText(
      'after',
      `\nExamples:\n${examples.map((example) => `  $ ${example}`).join('\n')}\n${AGENT_HELP}`,
    );
}

function registrationOptions(command: Command): Command {
  return command
    .option('--owner-email <email>', 'the responsible human; receives the owner code')
    .option('--app-slug <slug>', 'app slug: lowercase letters, digits, hyphens (3-63)')
    .option('--app-name <name>', 'app display name')
    .option('--agent-email <email>', "the agent's own mailbox; receives the agent code")
    .option('--description <text>', 'what the app does')
    .option('--homepage-url <url>', "the app's homepage")
    .option('--contact-email <email>', 'technical contact for the app');
}

/** Registers the agent commands: register, onboard, whoami, search, describe, dry-run, invoke, keys. */
export function registerAgentCommands(program: Command, context: AgentContext): void {
  registrationOptions(
    agentCommand(
      program,
      'register',
      'register an app; keeps the bootstrap key in the profile for `agw onboard`',
      [
        'agw register --owner-email owner@example.com --app-slug my-agent --app-name "My Agent"',
        'agw register --owner-email owner@example.com --agent-email agent@example.com --app-slug my-agent --app-name "My Agent" --profile work',
      ],
    ),
  ).action((flags) => register(flags, context));

  registrationOptions(
    agentCommand(
      program,
      'onboard',
      'the whole onboarding: register, organization, owner and agent codes, operator approval; resumes after an interruption',
      [
        'agw onboard --owner-email owner@example.com --app-slug my-agent --app-name "My Agent" --org-name "Acme"',
        'agw onboard --owner-otp 123456 --no-wait',
        'printf "%s\\n%s\\n" "$OWNER_CODE" "$AGENT_CODE" | agw onboard --org-name Acme',
      ],
    ),
  )
    .option('--org-name <name>', 'organization to create (asked on a terminal when missing)')
    .option('--owner-otp <code>', 'the owner code (else asked on the terminal, or read from stdin)')
    .option('--agent-otp <code>', 'the agent code (else asked, or the next stdin line)')
    .option('--no-wait', 'stop after the codes instead of waiting for operator approval')
    .option('--show-key', 'print the installation key once, when it is created')
    .action((flags) => onboard(flags, context));

  agentCommand(program, 'whoami', 'organization, installation status and scopes of the profile key', [
    'agw whoami',
    'agw whoami --profile work --json',
  ]).action((flags) => whoami(flags, context));

  agentCommand(program, 'search', 'search capabilities (with the profile key when there is one)', [
    'agw search "send email"',
    'agw search --domain wallet --risk-max medium --limit 20 --json',
  ])
    .argument('[query]', 'free text')
    .option('--domain <domain>', 'only this domain')
    .addOption(new Option('--risk-max <level>', 'highest risk level').choices(RISK_LEVELS))
    .option('--limit <n>', 'results per page, 1-50 (default 10)')
    .option('--cursor <cursor>', 'next page, from the previous answer')
    .action((query: string | undefined, flags) => search(query, flags, context));

  agentCommand(program, 'describe', "a capability's contract: risk, cost, scopes, input and output schema", [
    'agw describe wallet.agent_budget.guard.check',
    'agw describe wallet.agent_budget.guard.check --capability-version 1.0.0 --json',
  ])
    .argument('<id>', 'capability id')
    .option('--capability-version <version>', 'capability version (default: the current one)')
    .action((id: string, flags) => describe(id, flags, context));

  agentCommand(program, 'dry-run', 'validate and simulate a capability call; nothing changes', [
    `agw dry-run wallet.agent_budget.guard.check '{"capability_id": "analytics.events.read", "estimated_cost_credits": 5}'`,
    'agw dry-run wallet.agent_budget.guard.check @params.json',
    'echo \'{"capability_id": "analytics.events.read", "estimated_cost_credits": 5}\' | agw dry-run wallet.agent_budget.guard.check -',
  ])
    .argument('<id>', 'capability id')
    .argument('[params]', 'params: JSON object, @file, or - for stdin (default {})')
    .option('--capability-version <version>', 'capability version (default: the current one)')
    .action((id: string, params: string | undefined, flags) => dryRun(id, params, flags, context));

  agentCommand(program, 'invoke', 'run a capability (idempotency key generated unless given)', [
    `agw invoke wallet.agent_budget.guard.check '{"capability_id": "analytics.events.read", "estimated_cost_credits": 5}'`,
    'agw invoke my.capability @params.json --idempotency-key order-2026-11-22-0001',
    'agw invoke my.capability @params.json --approval-token <token>',
    'agw invoke my.capability @params.json --quote agw_q_…',
    `agw invoke billing.document.pdf '{"document_id": "<id>"}' --out invoice.pdf`,
  ])
    .argument('<id>', 'capability id')
    .argument('[params]', 'params: JSON object, @file, or - for stdin (default {})')
    .option('--capability-version <version>', 'capability version (default: the current one)')
    .option('--idempotency-key <key>', 'your own key (16-128 visible ASCII) to repeat a call safely')
    .option('--approval-token <token>', 'the token of an approved pending_approval answer')
    .option(
      '--quote <quote>',
      'the price quote `agw dry-run` printed: charged at most its amount, same params only',
    )
    .option(
      '--out <file>',
      'write the binary result (PDF, XML, any *_base64 field) decoded to <file>, or - for stdout',
    )
    .option('--force', 'let --out overwrite an existing file')
    .action((id: string, params: string | undefined, flags) => invoke(id, params, flags, context));

  const keys = program
    .command('keys')
    .description('installation key of the profile')
    .addHelpText('after', '\nExamples:\n  $ agw keys rotate');
  agentCommand(keys, 'rotate', 'rotate the installation key; the new one replaces the old in the profile', [
    'agw keys rotate',
    'agw keys rotate --profile work --show-key',
  ])
    .option('--show-key', 'print the new key once')
    .action((flags) => keysRotate(flags, context));
}
