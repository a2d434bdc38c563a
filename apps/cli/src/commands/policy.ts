import type { BudgetPolicy, BudgetPolicyChange, BudgetPolicyPatch } from '@agw/client/admin';
import type { CommandContext } from '../context.js';
import { EXIT, ExitError } from '../io.js';
import { type OperatorFlags, operatorClient, withGateway } from '../operator-context.js';
import { type Colors, colorsFor, formatTime, renderFields, writeJson } from '../output.js';

/** `agw policy show <org-id>`: the caps and the kill switch. */
export async function policyShow(
  organizationId: string,
  flags: OperatorFlags,
  context: CommandContext,
): Promise<void> {
  const client = await operatorClient(flags, context);
  const policy = await withGateway(() => client.getPolicy(organizationId));
  if (flags.json) {
    writeJson(context.io, { policy });
    return;
  }
  context.io.stdout(describePolicy(policy, colorsFor(context.io, context.env)));
}

/** Flags of `agw policy set` (each cap: a decimal, or `none` to clear it). */
export interface PolicySetFlags extends OperatorFlags {
  readonly taskCap?: string | undefined;
  readonly dailyCap?: string | undefined;
  readonly monthlyCap?: string | undefined;
  readonly burnRateCap?: string | undefined;
  readonly killSwitch?: 'on' | 'off' | undefined;
}

const DECIMAL = /^\d+(?:\.\d+)?$/;

/** A cap flag as the API wants it: `none` clears (null), a decimal sets, anything else is exit 2. */
export function parseCap(flag: string, value: string | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  if (DECIMAL.test(value)) return value;
  throw new ExitError(
    EXIT.usage,
    `${flag} takes a decimal number of credits or 'none' to clear it; got '${value}'`,
  );
}

/** `agw policy set <org-id> [--task-cap N] ... [--kill-switch on|off]`: only the flags given change. */
export async function policySet(
  organizationId: string,
  flags: PolicySetFlags,
  context: CommandContext,
): Promise<void> {
  const patch: BudgetPolicyPatch = {};
  const caps = [
    ['--task-cap', flags.taskCap, 'task_cap_credits'],
    ['--daily-cap', flags.dailyCap, 'daily_cap_credits'],
    ['--monthly-cap', flags.monthlyCap, 'monthly_cap_credits'],
    ['--burn-rate-cap', flags.burnRateCap, 'burn_rate_hourly_cap_credits'],
  ] as const;
  for (const [flag, value, field] of caps) {
    const parsed = parseCap(flag, value);
    if (parsed !== undefined) patch[field] = parsed;
  }
  if (flags.killSwitch !== undefined) patch.kill_switch_enabled = flags.killSwitch === 'on';
  if (Object.keys(patch).length === 0) {
    throw new ExitError(
      EXIT.usage,
      'nothing to set: give at least one of --task-cap, --daily-cap, --monthly-cap, --burn-rate-cap, --kill-switch',
    );
  }
  const client = await operatorClient(flags, context);
  const change: BudgetPolicyChange = await withGateway(() => client.setPolicy(organizationId, patch));
  if (flags.json) {
    writeJson(context.io, change);
    return;
  }
  const colors = colorsFor(context.io, context.env);
  context.io.stdout(
    `${change.changed ? `Policy of ${organizationId} updated. audit_id ${change.audit_id}` : `Policy of ${organizationId} already so; nothing changed.`}\n${describePolicy(change.policy, colors)}`,
  );
}

function describePolicy(policy: BudgetPolicy, colors: Colors): string {
  const cap = (value: string | null) => (value === null ? colors.dim('none') : `${value} credits`);
  return renderFields(
    [
      ['organization', policy.organization_id],
      ['task cap', cap(policy.task_cap_credits)],
      ['daily cap', cap(policy.daily_cap_credits)],
      ['monthly cap', cap(policy.monthly_cap_credits)],
      ['burn-rate cap (hourly)', cap(policy.burn_rate_hourly_cap_credits)],
      ['kill switch', policy.kill_switch_enabled ? colors.red('on') : 'off'],
      ['updated', formatTime(policy.updated_at)],
    ],
    colors,
  );
}
