import { defineCapabilityHandler } from '../define.js';
import { runStatement } from '../sql.js';
import { billingContract, currencyCode, iso, notFound } from './common.js';
import { money, toNumber } from './money.js';
import { type ItemRow, selectItem, upsertItem } from './sql-catalog.js';
import { selectDefaultProfile } from './sql-settings.js';

export interface ItemSaveInput {
  name: string;
  item_type: string;
  unit_price: number;
  id?: string;
  sku?: string | null;
  description?: string | null;
  unit?: string | null;
  currency?: string;
  tax_name?: string | null;
  tax_percent?: number | null;
  is_active?: boolean;
}

export function itemOutput(row: ItemRow) {
  return {
    ...row,
    unit_price: toNumber(row.unit_price),
    tax_percent: row.tax_percent === null ? null : toNumber(row.tax_percent),
    updated_at: iso(row.updated_at) as string,
  };
}

/**
 * `billing.item.save`: creates or updates (with id) a catalog item. The currency defaults to the
 * default profile's (else EUR). A line that names the item takes its tax rate when it gives none.
 */
export const billingItemSaveHandler = defineCapabilityHandler<ItemSaveInput, unknown>({
  contract: billingContract('billing.item.save'),
  async handle(input, ctx) {
    const org = ctx.organizationId;
    let existing: ItemRow | undefined;
    if (input.id !== undefined) {
      existing = (await runStatement<ItemRow>(ctx.sql, selectItem, [org, input.id])).rows[0];
      if (existing === undefined) notFound('item', input.id);
    }
    const profileCurrency = async () =>
      (await runStatement<{ currency: string }>(ctx.sql, selectDefaultProfile, [org])).rows[0]?.currency ??
      'EUR';
    const currency =
      input.currency !== undefined
        ? currencyCode(input.currency, '/params/currency')
        : (existing?.currency ?? (await profileCurrency()));
    const pick = <K extends 'sku' | 'description' | 'unit' | 'tax_name'>(name: K) =>
      input[name] === undefined ? (existing?.[name] ?? null) : input[name];
    const taxPercent =
      input.tax_percent === undefined
        ? (existing?.tax_percent ?? null)
        : input.tax_percent === null
          ? null
          : money(input.tax_percent).toFixed();
    const { rows } = await runStatement<ItemRow>(ctx.sql, upsertItem, [
      existing?.id ?? ctx.ids.uuid(),
      org,
      input.name,
      pick('sku'),
      input.item_type,
      pick('description'),
      pick('unit'),
      money(input.unit_price).toFixed(),
      currency,
      pick('tax_name'),
      taxPercent,
      input.is_active ?? existing?.is_active ?? true,
      ctx.now,
    ]);
    return { item: itemOutput(rows[0] as ItemRow), created: existing === undefined };
  },
});
