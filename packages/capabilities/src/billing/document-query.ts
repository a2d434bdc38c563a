import type { CapabilityContract } from '@agw/contracts';
import { defineCapabilityHandler } from '../define.js';
import { searchQuery } from '../text-search.js';
import { billingContract, documentRecord, page, paging } from './common.js';
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
 * The query text of one sort and open filter. Every filter is a parameter that may be null, so the
 * statement is left unnamed: PostgreSQL then plans it with the values bound (a generic plan of a named
 * one cannot tell which filters are null and scanned 100 000 rows). The sort ends on id, so paging is
 * stable, and keeps PostgreSQL's default null order (nulls last ascending, first descending) so the
 * `(organization_id, <sort column>, id)` indexes serve it in both directions.
 * $1 organization, $2 type, $3 status, $4 date from, $5 date to, $6 tsquery text, $7 limit, $8 offset.
 */
export function documentQueryText(
  sortBy: string,
  ascending: boolean,
  openFilter: keyof typeof OPEN_FILTERS,
): string {
  const direction = ascending ? 'asc' : 'desc';
  return `select ${DOCUMENT_COLUMNS} from billing_documents
where organization_id = $1
  and ($2::text is null or document_type = $2)
  and ($3::text is null or status = $3)
  and ($4::date is null or document_date >= $4)
  and ($5::date is null or document_date <= $5)
  and ($6::text is null or search_vector @@ to_tsquery('simple'::regconfig, $6))
  and ${OPEN_FILTERS[openFilter]}
order by billing_documents.${sortBy} ${direction}, billing_documents.id ${direction}
limit $7 offset $8`;
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
        [
          ctx.organizationId,
          input.document_type ?? null,
          input.status ?? null,
          input.date_from ?? null,
          input.date_to ?? null,
          searchQuery(input.search),
          limit,
          offset,
        ],
      );
      return page(rows.map(documentRecord), limit, offset);
    },
  });
}

/** `billing.document.list`: filters, sort and paging over the organization's documents. */
export const billingDocumentListHandler = documentQueryHandler(billingContract('billing.document.list'));

/** `billing.document.search`: the same, where `search` matches number, title and counterparty words by prefix. */
export const billingDocumentSearchHandler = documentQueryHandler(billingContract('billing.document.search'));
