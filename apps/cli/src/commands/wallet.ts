import type { Wallet } from '@agw/client/admin';
import type { CommandContext } from '../context.js';
import { EXIT, ExitError } from '../io.js';
import { type OperatorFlags, operatorClient, withGateway } from '../operator-context.js';
import { capText, colorsFor, formatTime, renderFields, renderTable, writeJson } from '../output.js';
import { type PageFlags, pageOf } from '../paging.js';
import { walletTable } from '../wallet-table.js';

/** `agw wallet show <org-id>`: balance, spend windows, caps and the newest ledger rows. */
export async function walletShow(
  organizationId: string,
  flags: OperatorFlags,
  context: CommandContext,
): Promise<void> {
  const client = await operatorClient(flags, context);
  const wallet = await withGateway(() => client.getWallet(organizationId));
  if (flags.json) {
    writeJson(context.io, { wallet });
    return;
  }
  context.io.stdout(describeWallet(wallet, context));
}

/** Flags of `agw wallet credit`. */
export interface WalletCreditFlags extends OperatorFlags {
  readonly memo?: string | undefined;
  readonly idempotencyKey?: string | undefined;
}

// A plain decimal; the gateway enforces the exact limits (positive, 6 decimals, under a trillion).
const DECIMAL = /^\d+(?:\.\d+)?$/;

/** `agw wallet credit <org-id> <amount> [--memo]`: one audited ledger credit, safe to retry. */
export async function walletCredit(
  organizationId: string,
  amount: string,
  flags: WalletCreditFlags,
  context: CommandContext,
): Promise<void> {
  if (!DECIMAL.test(amount)) {
    throw new ExitError(
      EXIT.usage,
      `the amount must be a plain decimal number of credits, e.g. 25 or 0.5; got '${amount}'`,
    );
  }
  const client = await operatorClient(flags, context);
  const credit = await withGateway(() =>
    client.creditWallet(
      organizationId,
      { amount, ...(flags.memo ? { memo: flags.memo } : {}) },
      flags.idempotencyKey ? { idempotencyKey: flags.idempotencyKey } : {},
    ),
  );
  if (flags.json) {
    writeJson(context.io, credit);
    return;
  }
  context.io.stdout(
    credit.replayed
      ? `Already credited ${credit.entry.amount_credits} credits with this idempotency key; nothing changed. Balance ${credit.balance_credits} credits.\n`
      : `Credited ${credit.entry.amount_credits} credits to ${organizationId}. Balance ${credit.balance_credits} credits. audit_id ${credit.audit_id}\n`,
  );
}

function describeWallet(wallet: Wallet, context: CommandContext): string {
  const colors = colorsFor(context.io, context.env);
  const cap = (value: string | null) => capText(value, colors);
  const fields = renderFields(
    [
      ['organization', wallet.organization_id],
      ['balance', `${wallet.balance_credits} ${wallet.currency}`],
      ['spent last hour', wallet.spent.hour_credits],
      ['spent today (UTC)', wallet.spent.today_credits],
      ['spent this month (UTC)', wallet.spent.month_credits],
      ['task cap', cap(wallet.policy.task_cap_credits)],
      ['daily cap', cap(wallet.policy.daily_cap_credits)],
      ['monthly cap', cap(wallet.policy.monthly_cap_credits)],
      ['burn-rate cap (hourly)', cap(wallet.policy.burn_rate_hourly_cap_credits)],
      ['kill switch', wallet.policy.kill_switch_enabled ? colors.red('on') : 'off'],
    ],
    colors,
  );
  if (wallet.ledger.length === 0) return `${fields}\nNo ledger entries.\n`;
  const rows = wallet.ledger.map((entry) => [
    formatTime(entry.occurred_at),
    entry.kind === 'credit' ? colors.green('credit') : 'charge',
    entry.kind === 'credit' ? `+${entry.amount_credits}` : `-${entry.amount_credits}`,
    entry.capability_id ?? '-',
    entry.id,
  ]);
  return `${fields}\nLast ledger entries (newest first):\n${renderTable(['TIME', 'KIND', 'AMOUNT', 'CAPABILITY', 'ENTRY'], rows, colors)}`;
}

/** `agw wallets list`: every organization's wallet by organization name (balance, spend, caps, kill switch). */
export async function walletsList(flags: PageFlags & OperatorFlags, context: CommandContext): Promise<void> {
  const page = pageOf(flags);
  const client = await operatorClient(flags, context);
  const listed = await withGateway(() => client.listWallets(page));
  if (flags.json) {
    writeJson(context.io, listed);
    return;
  }
  if (listed.wallets.length === 0) {
    context.io.stdout('No wallets.\n');
    return;
  }
  const rows = listed.wallets.map(
    ({ organization_id, organization_name, organization_active, ...wallet }) => ({
      organization_id,
      organization_name,
      organization_active,
      wallet,
    }),
  );
  context.io.stdout(walletTable(rows, listed.next_cursor, colorsFor(context.io, context.env)));
}
