import { defineCapabilityHandler } from '../define.js';
import { runStatement } from '../sql.js';
import { billingContract, likeEscaped, page, paging } from './common.js';
import { itemOutput } from './item-save.js';
import { type ItemRow, searchItems } from './sql-catalog.js';

export interface ItemSearchInput {
  query?: string;
  item_type?: string;
  active_only?: boolean;
  limit?: number;
  offset?: number;
}

/**
 * `billing.item.search`: substring match on name, SKU and description, by name. `active_only`
 * defaults to true: an agent looks for items to put on a line.
 */
export const billingItemSearchHandler = defineCapabilityHandler<ItemSearchInput, unknown>({
  contract: billingContract('billing.item.search'),
  async handle(input, ctx) {
    const { limit, offset } = paging(input);
    const query = input.query?.trim();
    const { rows } = await runStatement<ItemRow>(ctx.sql, searchItems, [
      ctx.organizationId,
      query ? `%${likeEscaped(query)}%` : null,
      input.item_type ?? null,
      input.active_only ?? true,
      limit,
      offset,
    ]);
    return page(rows.map(itemOutput), limit, offset);
  },
});
