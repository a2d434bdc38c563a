import { defineCapabilityHandler } from '../define.js';
import { runStatement } from '../sql.js';
import { accountOutput } from './account-save.js';
import { billingContract, likeEscaped, page, paging } from './common.js';
import { type AccountRow, searchAccounts } from './sql-catalog.js';

export interface AccountSearchInput {
  query?: string;
  account_type?: string;
  active_only?: boolean;
  limit?: number;
  offset?: number;
}

/** `billing.account.search`: substring match on name, legal name, email and VAT id; by name. */
export const billingAccountSearchHandler = defineCapabilityHandler<AccountSearchInput, unknown>({
  contract: billingContract('billing.account.search'),
  async handle(input, ctx) {
    const { limit, offset } = paging(input);
    const query = input.query?.trim();
    const { rows } = await runStatement<AccountRow>(ctx.sql, searchAccounts, [
      ctx.organizationId,
      query ? `%${likeEscaped(query)}%` : null,
      input.account_type ?? null,
      input.active_only ?? false,
      limit,
      offset,
    ]);
    return page(rows.map(accountOutput), limit, offset);
  },
});
