import type { CapabilityContract } from '@agw/contracts';
import { defineCapabilityHandler } from '../define.js';
import { searchQuery } from '../text-search.js';
import { billingContract, documentRecord, page, paging, utcDate } from './common.js';
import type { BillingDocumentRow } from './records.js';
import { DOCUMENT_COLUMNS } from './sql.js';

export interface DocumentQueryInput {
  document_type?: string;
  search?: string;
  status?: string;
  open_filter?: 'all' | 'open' | 'paid';
  date_from?: string;
  date_to?: string;
  sort_by?: 'document_date' | 'created_at' | 'total' | 'number' | 'counterparty_name' | 'status';
  ascending?: boolean;
  limit?: number;
  offset?: number;
}

/** Open means money is still due on an issued document; paid means nothing is. */
const OPEN_FILTERS = {
  all: 'true',
  open: "status in ('open', 'sent', 'partially_paid') and balance > 0",
  paid: "payment_status = 'paid'",
} as const;

/**
 * The spec's one `status` filter list mixes document statuses with payment statuses. These values are
 * a document's `payment_status` and filter that column; `paid` is both and filters `status` (an
 * invoice is `paid` in both columns at once). Nothing is ever `refunded` yet (no refunds), so that
 * filter answers an empty page rather than a refusal: the value is valid, no document has it.
 */
const PAYMENT_STATUS_FILTERS: readonly string[] = ['unpaid', 'partial', 'refunded', 'not_applicable'];

/**
 * The query text of one sort and open filter. Every filter is a parameter that may be null, so the
 * statement is left unnamed: PostgreSQL then plans it with the values bound (a generic plan of a named
 * one cannot tell which filters are null and scanned 100 000 rows). The sort ends on id, so paging is
 * stable, and keeps PostgreSQL's default null order (nulls last ascending, first descending) so the
 * `(organization_id, <sort column>, id)` indexes serve it in both directions.
 * Parameters: documentQueryValues.
 */
export function documentQueryText(
  sortBy: string,
  ascending: boolean,
  openFilter: keyof typeof OPEN_FILTERS,
): string {
  const direction = ascending ? 'asc' : 'desc';
  // Overdue ($10 = today) is computed, never stored: an issued invoice with money owed whose due date
  // (its date when it has none, as billing.reminder.create reads it) is before today.
  return `select ${DOCUMENT_COLUMNS} from billing_documents
where organization_id = $1
  and ($2::text is null or document_type = $2)
  and ($3::text is null or status = $3)
  and ($4::date is null or document_date >= $4)
  and ($5::date is null or document_date <= $5)
  and ($6::text is null or search_vector @@ to_tsquery('simple'::regconfig, $6))
  and ($9::text is null or payment_status = $9)
  and ($10::date is null or (payment_status in ('unpaid', 'partial')
    and status in ('open', 'sent', 'partially_paid') and balance > 0
    and coalesce(due_date, document_date) < $10))
  and ${OPEN_FILTERS[openFilter]}
order by billing_documents.${sortBy} ${direction}, billing_documents.id ${direction}
limit $7 offset $8`;
}

/**
 * The values of documentQueryText's parameters: $1 organization, $2 type, $3 status, $4 date from,
 * $5 date to, $6 tsquery text, $7 limit, $8 offset, $9 payment status, $10 today when the filter is
 * `overdue` (`YYYY-MM-DD` of the gateway's clock, UTC).
 */
export function documentQueryValues(
  organizationId: string,
  input: DocumentQueryInput,
  today: string,
): unknown[] {
  const { limit, offset } = paging(input);
  const status = input.status ?? null;
  const isPaymentStatus = status !== null && PAYMENT_STATUS_FILTERS.includes(status);
  return [
    organizationId,
    input.document_type ?? null,
    status === null || isPaymentStatus || status === 'overdue' ? null : status,
    input.date_from ?? null,
    input.date_to ?? null,
    searchQuery(input.search),
    limit,
    offset,
    isPaymentStatus ? status : null,
    status === 'overdue' ? today : null,
  ];
}

function documentQueryHandler(contract: CapabilityContract) {
  return defineCapabilityHandler<DocumentQueryInput, unknown>({
    contract,
    async handle(input, ctx) {
      const { limit, offset } = paging(input);
      const sortBy = input.sort_by ?? 'created_at';
      const ascending = input.ascending ?? false;
      const openFilter = input.open_filter ?? 'all';
      const { rows } = await ctx.sql.query<BillingDocumentRow>(
        documentQueryText(sortBy, ascending, openFilter),
        documentQueryValues(ctx.organizationId, input, utcDate(ctx.now)),
      );
      return page(rows.map(documentRecord), limit, offset);
    },
  });
}

/** `billing.document.list`: filters, sort and paging over the organization's documents. */
export const billingDocumentListHandler = documentQueryHandler(billingContract('billing.document.list'));

/** `billing.document.search`: the same, where `search` matches number, title and counterparty words by prefix. */
export const billingDocumentSearchHandler = documentQueryHandler(billingContract('billing.document.search'));
