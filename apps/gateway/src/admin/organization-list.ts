import type { WalletSnapshot } from '@agw/guard';
import type { Router } from '@koa/router';
import type { Knex } from 'knex';
import { sqlOfKnex } from '../db/sql-knex.js';
import { GatewayError } from '../http/gateway-error.js';
import type { GatewayState } from '../http/state.js';
import { type SnapshotRow, snapshotOfRow, snapshotSelect, snapshotWindows } from '../ports/wallet-store.js';
import type { AdminRouteKit } from './approvals.js';
import { iso } from './rows.js';
import { adminValidator } from './validation.js';

/**
 * GET /admin/organizations and GET /admin/wallets: every organization with its wallet (balance, spend
 * today, caps, kill switch), by name, a page at a time. Keyset paging on (name, id), served by the
 * index `organizations_name_id`: the page after row 9 900 costs what the first does. One statement
 * per page, the wallet figures computed as the billing guard computes them (`snapshotSelect`).
 */

/** One organization and its wallet, as both lists show it. */
export interface OrganizationListEntry {
  readonly id: string;
  readonly name: string;
  readonly short_id: string;
  readonly is_active: boolean;
  readonly created_at: string;
  readonly wallet: Omit<WalletSnapshot, 'organization_id'>;
}

/** Query of both lists. */
export interface OrganizationListQuery {
  limit?: string;
  cursor?: string;
}

const DEFAULT_ORGANIZATION_LIMIT = 50;

const validateQuery = adminValidator<OrganizationListQuery>({
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'string', pattern: '^(?:[1-9][0-9]?|[1-4][0-9]{2}|500)$' },
    cursor: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,1400}$' },
  },
});

// The cursor is the last row's name and id. It only selects among rows the operator may read anyway,
// so it is encoded, not signed.
function encodeCursor(name: string, id: string): string {
  return Buffer.from(JSON.stringify([name, id]), 'utf8').toString('base64url');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function decodeCursor(cursor: string): [string, string] {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && typeof value[0] === 'string' && typeof value[1] === 'string') {
      if (UUID.test(value[1])) return [value[0], value[1]];
    }
  } catch {
    // Falls through to the refusal.
  }
  throw new GatewayError('invalid_cursor', { message: 'The cursor is not one this endpoint returned.' });
}

interface ListRow extends SnapshotRow {
  id: string;
  name: string;
  short_id: string;
  is_active: boolean;
  created_at: Date;
}

/** One page of organizations by name, and the cursor of the next (null on the last). */
export async function listOrganizations(
  knex: Knex,
  page: { limit: number; cursor?: string | undefined; nameContains?: string | undefined },
  now = new Date(),
): Promise<{ organizations: OrganizationListEntry[]; next_cursor: string | null }> {
  const after = page.cursor === undefined ? null : decodeCursor(page.cursor);
  // $1-$3 the spend windows, $4-$5 the cursor (null: from the start), $6 the page size plus one, $7 a
  // part of the name (LIKE's wildcards escaped) or null.
  const text = `
select o.id, o.name, o.short_id, o.is_active, o.created_at, snap.*
from (
  select id, name, short_id, is_active, created_at from organizations
  where ($4::text is null or (name, id) > ($4::text, $5::uuid))
    and ($7::text is null or name ilike '%' || $7::text || '%')
  order by name, id
  limit $6
) as o
cross join lateral (${snapshotSelect(1, 'o.id')}) as snap
order by o.name, o.id`;
  const result = await sqlOfKnex(knex).query<ListRow>(text, [
    ...snapshotWindows(now),
    after?.[0] ?? null,
    after?.[1] ?? null,
    page.limit + 1,
    page.nameContains?.replace(/[\\%_]/g, '\\$&') ?? null,
  ]);
  const rows = result.rows;
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  return {
    organizations: shown.map((row) => {
      const { organization_id: _id, ...wallet } = snapshotOfRow(row.id, row);
      return {
        id: row.id,
        name: row.name,
        short_id: row.short_id,
        is_active: row.is_active,
        created_at: iso(row.created_at),
        wallet,
      };
    }),
    next_cursor: rows.length > page.limit && last ? encodeCursor(last.name, last.id) : null,
  };
}

/** Registers both lists (the wallets list is the same rows, keyed by organization). */
export function registerOrganizationListRoutes(router: Router<GatewayState>, kit: AdminRouteKit): void {
  const { knex, route, reply } = kit;
  const read = (query: Record<string, unknown>) => {
    const valid = validateQuery({ ...query });
    return listOrganizations(knex, {
      limit: valid.limit === undefined ? DEFAULT_ORGANIZATION_LIMIT : Number(valid.limit),
      cursor: valid.cursor,
    });
  };
  router.get(
    '/admin/organizations',
    route(async ({ ctx }) => reply(ctx, await read(ctx.query))),
  );
  router.get(
    '/admin/wallets',
    route(async ({ ctx }) => {
      const { organizations, next_cursor } = await read(ctx.query);
      reply(ctx, {
        wallets: organizations.map(({ id, name, is_active, wallet }) => ({
          organization_id: id,
          organization_name: name,
          organization_active: is_active,
          currency: 'credits',
          ...wallet,
        })),
        next_cursor,
      });
    }),
  );
}
