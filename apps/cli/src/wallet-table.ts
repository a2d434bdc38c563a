import type { Wallet } from '@agw/client/admin';
import { type Colors, capText, nextPageHint, renderTable } from './output.js';

/** One organization's wallet as a row of `agw orgs list` and `agw wallets list`. */
export interface WalletRow {
  readonly organization_id: string;
  readonly organization_name: string;
  readonly organization_active: boolean;
  readonly wallet: Pick<Wallet, 'balance_credits' | 'spent' | 'policy'>;
}

/** The table both lists print, with the next page's hint under it. */
export function walletTable(rows: readonly WalletRow[], nextCursor: string | null, colors: Colors): string {
  const cells = rows.map(({ wallet, ...org }) => [
    org.organization_id,
    org.organization_name,
    org.organization_active ? 'active' : colors.red('inactive'),
    wallet.balance_credits,
    wallet.spent.today_credits,
    wallet.spent.month_credits,
    capText(wallet.policy.daily_cap_credits, colors),
    capText(wallet.policy.monthly_cap_credits, colors),
    wallet.policy.kill_switch_enabled ? colors.red('on') : 'off',
  ]);
  const headers = [
    'ID',
    'NAME',
    'STATE',
    'BALANCE',
    'SPENT TODAY',
    'SPENT MONTH',
    'DAILY CAP',
    'MONTHLY CAP',
  ];
  return renderTable([...headers, 'KILL SWITCH'], cells, colors) + nextPageHint(nextCursor, colors);
}
