import { type Command, Option } from 'commander';
import {
  approvalsApprove,
  approvalsDeny,
  approvalsList,
  approvalsShow,
  RUN_APPROVAL_STATUSES,
} from './commands/approvals.js';
import { policySet, policyShow } from './commands/policy.js';
import { walletCredit, walletShow, walletsList } from './commands/wallet.js';
import type { CommandContext } from './context.js';

/** The command builders of program-operator.ts (shared flags, examples and connection help). */
export interface OperatorCommandBuilders {
  operatorCommand(parent: Command, name: string, description: string, examples: string[]): Command;
  group(parent: Command, name: string, description: string, examples: string[]): Command;
}

const ID = '7d1f0c2a-0000-4000-8000-000000000000';
const ORG = '5f0e9b3c-0000-4000-8000-000000000000';

/** Registers `agw approvals`, `agw wallet` and `agw policy`. */
export function registerBudgetCommands(
  program: Command,
  context: CommandContext,
  { operatorCommand, group }: OperatorCommandBuilders,
): void {
  const approvals = group(
    program,
    'approvals',
    'decide runs of high-risk capabilities that wait for an operator (pending_approval)',
    ['agw approvals list', `agw approvals approve ${ID}`, `agw approvals deny ${ID} --reason "not now"`],
  );
  operatorCommand(approvals, 'list', 'list run approvals, oldest first (pending unless --status)', [
    'agw approvals list',
    `agw approvals list --status all --org ${ORG} --json`,
    'agw approvals list --watch',
  ])
    .addOption(
      new Option('-s, --status <status>', 'only this state (default pending)').choices(RUN_APPROVAL_STATUSES),
    )
    .option('--org <org-id>', 'only this organization')
    .option('-w, --watch', 'keep running: print each new pending approval once as it arrives (Ctrl-C ends)')
    .option(
      '--interval <seconds>',
      'with --watch: seconds between two looks (default 5; backs off on errors)',
    )
    .action((flags) => approvalsList(flags, context));
  operatorCommand(
    approvals,
    'show',
    'show one approval: capability, risk, estimated cost, preflight verdict, params (secrets masked), state',
    [`agw approvals show ${ID}`],
  )
    .argument('<id>', 'approval id (approval.approval_id in the agent answer)')
    .action((id: string, flags) => approvalsShow(id, flags, context));
  operatorCommand(
    approvals,
    'approve',
    'approve a pending run: the agent re-invokes with its approval_token and it runs once (exit 4 if denied or expired)',
    [`agw approvals approve ${ID}`],
  )
    .argument('<id>', 'approval id')
    .action((id: string, flags) => approvalsApprove(id, flags, context));
  operatorCommand(approvals, 'deny', 'deny a pending run: its token is then refused with 403', [
    `agw approvals deny ${ID}`,
    `agw approvals deny ${ID} --reason "too expensive"`,
  ])
    .argument('<id>', 'approval id')
    .option('--reason <text>', 'why (kept in the audit log)')
    .action((id: string, flags) => approvalsDeny(id, flags, context));

  const wallet = group(
    program,
    'wallet',
    'organization wallets in credits: balance, spend, ledger, credits',
    [`agw wallets list`, `agw wallet show ${ORG}`, `agw wallet credit ${ORG} 25 --memo "trial"`],
  ).alias('wallets');
  operatorCommand(
    wallet,
    'list',
    'list every wallet by organization name: balance, spend today and this month, caps, kill switch',
    ['agw wallets list', 'agw wallets list --limit 500 --json'],
  )
    .option('--limit <n>', 'rows per page, 1 to 500 (default 50)')
    .option('--cursor <cursor>', 'the next page (printed under the table, next_cursor in --json)')
    .action((flags) => walletsList(flags, context));
  operatorCommand(
    wallet,
    'show',
    'show balance, spend (last hour, UTC day, UTC month), caps and the last ledger rows',
    [`agw wallet show ${ORG}`, `agw wallet show ${ORG} --json`],
  )
    .argument('<org-id>', 'organization id')
    .action((id: string, flags) => walletShow(id, flags, context));
  operatorCommand(
    wallet,
    'credit',
    'credit an exact decimal amount (an append-only ledger row); a retry never pays twice',
    [
      `agw wallet credit ${ORG} 25`,
      `agw wallet credit ${ORG} 0.5 --memo refund --idempotency-key refund-ticket-4711`,
    ],
  )
    .argument('<org-id>', 'organization id')
    .argument('<amount>', 'credits, a positive decimal with at most 6 decimals, e.g. 25 or 0.125')
    .option('--memo <text>', 'a note kept in the audit log')
    .option(
      '--idempotency-key <key>',
      'reuse this key to make a repeated command a no-op (16-128 characters; default: a fresh key per run)',
    )
    .action((id: string, amount: string, flags) => walletCredit(id, amount, flags, context));

  const policy = group(program, 'policy', 'budget policy per organization: spend caps and the kill switch', [
    `agw policy show ${ORG}`,
    `agw policy set ${ORG} --daily-cap 100 --kill-switch off`,
  ]);
  operatorCommand(policy, 'show', 'show the caps and the kill switch', [`agw policy show ${ORG}`])
    .argument('<org-id>', 'organization id')
    .action((id: string, flags) => policyShow(id, flags, context));
  operatorCommand(
    policy,
    'set',
    'set caps (credits; `none` clears one) and the kill switch; only the flags given change',
    [
      `agw policy set ${ORG} --task-cap 5 --daily-cap 100 --monthly-cap 2000`,
      `agw policy set ${ORG} --burn-rate-cap 20`,
      `agw policy set ${ORG} --task-cap none`,
      `agw policy set ${ORG} --kill-switch on`,
    ],
  )
    .argument('<org-id>', 'organization id')
    .option('--task-cap <credits>', 'most one run may cost, or none')
    .option('--daily-cap <credits>', 'most the organization may spend per UTC day, or none')
    .option('--monthly-cap <credits>', 'most per UTC month, or none')
    .option('--burn-rate-cap <credits>', 'most per rolling hour, or none')
    .addOption(
      new Option('--kill-switch <state>', 'on stops every invoke of the organization').choices(['on', 'off']),
    )
    .action((id: string, flags) => policySet(id, flags, context));
}
