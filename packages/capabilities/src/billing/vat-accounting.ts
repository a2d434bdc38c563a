import { invalid } from './common.js';
import { formatAmount, minorUnits, money, roundTo } from './money.js';
import type { BillingDocumentRow } from './records.js';

/** The VAT accounting currency when none is named: the issuers this gateway serves account in EUR. */
export const DEFAULT_VAT_ACCOUNTING_CURRENCY = 'EUR';

/** What finalize freezes about the VAT accounting currency (all null when the document is in it). */
export interface VatAccounting {
  readonly currency: string | null;
  readonly rate: string | null;
  readonly taxTotal: string | null;
}

/**
 * BT-6 / BT-111 at finalize. A document in another currency than its VAT accounting currency states
 * its VAT total in that currency too (German practice, and XRechnung's for any non-EUR invoice), so it
 * needs an exchange rate — the one given to finalize, else the draft's; without one a document with
 * VAT is refused, naming the field. A document without VAT is issued without it (nothing to convert),
 * but states it when a rate was given. The converted total is rounded half-up to the accounting
 * currency's minor units and frozen with the rate.
 */
export function vatAccountingAtFinalize(
  document: BillingDocumentRow,
  givenRate: number | undefined,
): VatAccounting {
  const currency = document.vat_accounting_currency ?? DEFAULT_VAT_ACCOUNTING_CURRENCY;
  const rate = givenRate !== undefined ? String(givenRate) : document.exchange_rate;
  if (document.currency === currency) return { currency: null, rate: null, taxTotal: null };
  if (rate === null) {
    if (money(document.tax_total).isZero()) return { currency: null, rate: null, taxTotal: null };
    invalid(
      '/params/exchange_rate',
      `is required: the document is in ${document.currency} with VAT ${formatAmount(document.tax_total, document.currency)} ${document.currency}, and its VAT total must also be stated in ${currency} (EN 16931 BT-111); give the value of 1 ${document.currency} in ${currency} (e.g. 0.92) to finalize or create_draft`,
    );
  }
  const taxTotal = roundTo(money(document.tax_total).times(money(rate)), currency).toFixed(
    minorUnits(currency),
  );
  return { currency, rate: money(rate).toFixed(), taxTotal };
}
