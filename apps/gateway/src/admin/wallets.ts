import { randomUUID } from 'node:crypto';
import { compareCredits, parseCredits, type WalletSnapshot } from '@agw/guard';
import type { Router } from '@koa/router';
import type { Knex } from 'knex';
import { GatewayError } from '../http/gateway-error.js';
import type { GatewayState } from '../http/state.js';
import { IDEMPOTENCY_KEY_HEADER, parseIdempotencyKey, REPLAYED_HEADER } from '../idempotency/key-header.js';
import { credits, readWalletSnapshot } from '../ports/wallet-store.js';
import { type AdminContext, type AdminRouteKit, UUID_PATTERN } from './approvals.js';
import { adminValidator } from './validation.js';

const UUID = new RegExp(UUID_PATTERN);

import { iso } from './rows.js';

/**
 * The operator side of organization wallets: read the balance, the spend windows the billing guard
 * judges and the newest ledger rows; credit an amount. The ledger is append-only: a credit inserts a
 * `credit` row and moves the balance in the same transaction, nothing is ever updated or deleted.
 */

/** How many ledger rows `GET /admin/wallets/:org` shows, newest first. */
export const LEDGER_ENTRIES_SHOWN = 20;

/** One ledger row as the operator sees it (`amount` is positive; `kind` says which way it moved). */
export interface LedgerEntryView {
  readonly id: string;
  readonly kind: 'charge' | 'credit';
  readonly amount_credits: string;
  readonly capability_id: string | null;
  readonly occurred_at: string;
}

/** An organization's wallet with its policy and spend (the billing guard's view) and its newest rows. */
export interface WalletView {
  readonly organization_id: string;
  readonly currency: 'credits';
  readonly balance_credits: string;
  readonly spent: WalletSnapshot['spent'];
  readonly policy: WalletSnapshot['policy'];
  readonly ledger: readonly LedgerEntryView[];
}

/** Body of POST /admin/wallets/:org/credit. */
export interface CreditBody {
  amount: string;
  memo?: string;
}

// numeric(20,6) holds 14 integer digits; one credit is capped at 12 (under a trillion) so a typo
// such as a pasted account number is refused, and the balance keeps room below the column limit.
export const validateCreditBody = adminValidator<CreditBody>({
  type: 'object',
  additionalProperties: false,
  required: ['amount'],
  properties: {
    amount: { type: 'string', pattern: '^(?:0|[1-9][0-9]{0,11})(?:\\.[0-9]{1,6})?$' },
    memo: { type: 'string', minLength: 1, maxLength: 200 },
  },
});

const BALANCE_LIMIT = '99999999999999.999999';

/** 404 unless the organization exists. */
export async function assertOrganization(knex: Knex | Knex.Transaction, id: string): Promise<void> {
  const row = await knex('organizations').where({ id }).first('id');
  if (!row) throw organizationNotFound(id);
}

export function organizationNotFound(id: string): GatewayError {
  return new GatewayError('not_found', { message: `No organization with id ${id}.` });
}

// An organization's newest rows, by the transaction that wrote them (the index the snapshot reads,
// (organization_id, txid)); rows written before the roll-up went by transaction all have txid 0 and
// come after, by time.
const NEWEST_LEDGER_ROWS = `
select id, kind, amount, capability_id, occurred_at from wallet_ledger
where organization_id = ?
order by txid desc, occurred_at desc, id desc
limit ${LEDGER_ENTRIES_SHOWN}`;

/** The wallet of `organizationId` (balance 0 and no caps when it has no rows yet); 404 for an unknown one. */
export async function showWallet(knex: Knex | Knex.Transaction, organizationId: string): Promise<WalletView> {
  await assertOrganization(knex, organizationId);
  return walletOf(knex, organizationId);
}

/** {@link showWallet} of an organization the caller has read already (its policy included). */
export async function walletOf(knex: Knex | Knex.Transaction, organizationId: string): Promise<WalletView> {
  const snapshot = await readWalletSnapshot(knex, organizationId, new Date());
  const result = (await knex.raw(NEWEST_LEDGER_ROWS, [organizationId])) as {
    rows: {
      id: string;
      kind: 'charge' | 'credit';
      amount: string;
      capability_id: string | null;
      occurred_at: Date;
    }[];
  };
  const rows = result.rows;
  return {
    organization_id: organizationId,
    currency: 'credits',
    balance_credits: snapshot.balance_credits,
    spent: snapshot.spent,
    policy: snapshot.policy,
    ledger: rows.map((row) => ({
      id: row.id,
      kind: row.kind,
      amount_credits: credits(row.amount),
      capability_id: row.capability_id,
      occurred_at: iso(row.occurred_at),
    })),
  };
}

/** What a credit did. */
export interface CreditResult {
  readonly entry: LedgerEntryView;
  readonly balance_credits: string;
  /** True when an earlier credit with the same Idempotency-Key answered (nothing was written). */
  readonly replayed: boolean;
}

/**
 * Credits `amount` to the organization's wallet: one `credit` ledger row and the balance change in
 * `trx`. With an Idempotency-Key the ledger scope is `credit:<org>:<key>` (unique), so a retried
 * request replays the first credit instead of paying twice; the same key with another amount or
 * organization is 409. Without a key every call is a new credit (the admin client always sends one).
 */
export async function creditWallet(
  trx: Knex.Transaction,
  organizationId: string,
  amount: string,
  idempotencyKey: string | undefined,
): Promise<CreditResult> {
  if (parseCredits(amount) <= 0n) {
    throw new GatewayError('validation_failed', {
      message: 'The request does not match the schema at "/amount": a credit must be greater than 0.',
      details: [
        { schema_pointer: '/amount', keyword: 'exclusiveMinimum', message: 'must be greater than 0' },
      ],
      schemaPointer: '/amount',
    });
  }
  await assertOrganization(trx, organizationId);
  const scope = `credit:${organizationId}:${idempotencyKey ?? randomUUID()}`;
  // Lock the wallet row first (creating it at 0), so concurrent credits and charges serialize.
  await trx('wallets')
    .insert({ organization_id: organizationId, balance: '0' })
    .onConflict('organization_id')
    .ignore();
  const wallet = (await trx('wallets')
    .where({ organization_id: organizationId })
    .forUpdate()
    .first('balance')) as {
    balance: string;
  };
  const previous = (await trx('wallet_ledger').where({ idempotency_scope: scope }).first()) as
    | {
        id: string;
        organization_id: string;
        kind: string;
        amount: string;
        capability_id: string | null;
        occurred_at: Date;
      }
    | undefined;
  if (previous) {
    if (previous.kind !== 'credit' || compareCredits(credits(previous.amount), amount) !== 0) {
      throw new GatewayError('conflict', {
        message: 'This Idempotency-Key was already used for a credit of another amount.',
        hint: 'Use a new Idempotency-Key for a new credit.',
        details: [{ amount_credits: credits(previous.amount) }],
      });
    }
    return { entry: entryView(previous), balance_credits: credits(wallet.balance), replayed: true };
  }
  const balance = credits(wallet.balance);
  if (parseCredits(balance) + parseCredits(amount) > parseCredits(BALANCE_LIMIT)) {
    throw new GatewayError('conflict', {
      message: `This credit would take the balance past the largest storable amount (${BALANCE_LIMIT}).`,
    });
  }
  const [inserted] = await trx('wallet_ledger')
    .insert({ organization_id: organizationId, amount, kind: 'credit', idempotency_scope: scope })
    .returning(['id', 'kind', 'amount', 'capability_id', 'occurred_at']);
  const [updated] = await trx('wallets')
    .where({ organization_id: organizationId })
    .update({ balance: trx.raw('balance + ?', [amount]), updated_at: trx.fn.now() })
    .returning('balance');
  return {
    entry: entryView(inserted),
    balance_credits: credits((updated as { balance: string }).balance),
    replayed: false,
  };
}

function entryView(row: {
  id: string;
  kind: string;
  amount: string;
  capability_id: string | null;
  occurred_at: Date;
}): LedgerEntryView {
  return {
    id: row.id,
    kind: row.kind as 'charge' | 'credit',
    amount_credits: credits(row.amount),
    capability_id: row.capability_id,
    occurred_at: iso(row.occurred_at),
  };
}

/**
 * {@link creditWallet} with what its `wallet.credit` audit record says (the admin API's and the
 * console's credit alike).
 */
export async function creditWalletAudited(
  trx: Knex.Transaction,
  organizationId: string,
  body: CreditBody,
  idempotencyKey: string | undefined,
): Promise<{ result: CreditResult; details: Record<string, unknown> }> {
  const result = await creditWallet(trx, organizationId, body.amount, idempotencyKey);
  return {
    result,
    details: {
      organization_id: organizationId,
      amount_credits: result.entry.amount_credits,
      ledger_entry_id: result.entry.id,
      balance_credits: result.balance_credits,
      replayed: result.replayed,
      ...(body.memo === undefined ? {} : { memo: body.memo }),
    },
  };
}

/** The `:organization_id` route parameter; anything but a UUID is a missing organization (404). */
export function organizationParam(ctx: AdminContext): string {
  const id = ctx.params.organization_id ?? '';
  if (!UUID.test(id)) throw organizationNotFound(id);
  return id;
}

/** GET /admin/wallets/:org and POST /admin/wallets/:org/credit. */
export function registerWalletRoutes(router: Router<GatewayState>, kit: AdminRouteKit): void {
  const { knex, route, reply } = kit;
  router.get(
    '/admin/wallets/:organization_id',
    route(async ({ ctx }) => reply(ctx, { wallet: await showWallet(knex, organizationParam(ctx)) })),
  );
  router.post(
    '/admin/wallets/:organization_id/credit',
    route(async (call) => {
      const id = organizationParam(call.ctx);
      const body = validateCreditBody(call.ctx.state.body);
      const header = call.ctx.get(IDEMPOTENCY_KEY_HEADER);
      const key = header === '' ? undefined : parseIdempotencyKey(header);
      const outcome = await call.audited(
        'wallet.credit',
        (result: CreditResult) => (result.replayed ? 200 : 201),
        (trx) => creditWalletAudited(trx, id, body, key),
      );
      if (outcome.replayed) call.ctx.set(REPLAYED_HEADER, 'true');
      reply(
        call.ctx,
        { organization_id: id, ...outcome, ...(body.memo === undefined ? {} : { memo: body.memo }) },
        true,
      );
    }, true),
  );
}
