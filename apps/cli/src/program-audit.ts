import type { Command } from 'commander';
import { auditList, auditVerify, EXIT_AUDIT_TAMPERED } from './commands/audit.js';
import type { CommandContext } from './context.js';
import type { OperatorCommandBuilders } from './program-budget.js';

const ORG = '5f0e9b3c-0000-4000-8000-000000000000';

/** Registers `agw audit list` and `agw audit verify`. */
export function registerAuditCommands(
  program: Command,
  context: CommandContext,
  { operatorCommand, group }: OperatorCommandBuilders,
): void {
  const audit = group(program, 'audit', 'read the audit log and check that nobody changed it', [
    'agw audit list --action capability.invoke --outcome denied',
    'agw audit verify',
  ]);
  operatorCommand(audit, 'list', 'list audit rows, newest first: seq, time, actor, action, outcome', [
    'agw audit list',
    `agw audit list --org ${ORG} --limit 200 --json`,
    'agw audit list --action installation.approve --since 2026-11-01T00:00:00Z',
  ])
    .option('--org <org-id>', 'only rows of this organization')
    .option('--installation <id>', 'only rows of this installation (its own and operator actions on it)')
    .option('--actor <actor>', 'only this actor, e.g. operator:AbCdEf123456')
    .option('--action <action>', 'only this action, e.g. capability.invoke')
    .option('--outcome <outcome>', 'only this outcome, e.g. denied')
    .option('--since <time>', 'only rows at or after this ISO 8601 time')
    .option('--limit <n>', 'rows per page, 1-500 (default 50)')
    .option('--cursor <cursor>', 'the next page, as printed after the previous one')
    .action((flags) => auditList(flags, context));
  operatorCommand(
    audit,
    'verify',
    `recompute the audit hash chain; exit 0 when intact, ${EXIT_AUDIT_TAMPERED} when a row was changed or deleted`,
    [
      'agw audit verify',
      'agw audit verify --json',
      'agw audit verify --anchor 1200:<hash from an earlier run>',
    ],
  )
    .option('--anchor <seq:hash>', 'a head printed by an earlier verify: also detects a cut-off tail')
    .action((flags) => auditVerify(flags, context));
}
