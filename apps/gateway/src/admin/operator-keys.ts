import { generateApiKey } from '@agw/guard';
import type { Knex } from 'knex';
import { iso } from './rows.js';

/** The scope every operator key carries; operator keys are recognised by `kind`, this is descriptive. */
export const OPERATOR_SCOPE = 'operator:admin';

/** An operator key as the admin API shows it: never the secret or its hash. */
export interface OperatorKeyView {
  readonly id: string;
  readonly prefix: string;
  readonly label: string | null;
  /** `active`, `revoked` or `expired`. */
  readonly status: 'active' | 'revoked' | 'expired';
  readonly created_at: string;
  readonly last_used_at: string | null;
  readonly expires_at: string | null;
  readonly revoked_at: string | null;
}

/** A key just created: `token` is its only plaintext appearance. */
export interface CreatedOperatorKey {
  readonly key: OperatorKeyView;
  readonly token: string;
}

interface OperatorKeyRow {
  id: string;
  prefix: string;
  label: string | null;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  expired: boolean;
}

const COLUMNS = ['id', 'prefix', 'label', 'created_at', 'last_used_at', 'expires_at', 'revoked_at'];

function selectKeys(knex: Knex | Knex.Transaction) {
  return knex('api_keys')
    .select(COLUMNS)
    .select(knex.raw('(expires_at is not null and expires_at <= now()) as expired'))
    .where({ kind: 'operator' });
}

function toView(row: OperatorKeyRow): OperatorKeyView {
  return {
    id: row.id,
    prefix: row.prefix,
    label: row.label,
    status: row.revoked_at !== null ? 'revoked' : row.expired ? 'expired' : 'active',
    created_at: iso(row.created_at),
    last_used_at: iso(row.last_used_at),
    expires_at: iso(row.expires_at),
    revoked_at: iso(row.revoked_at),
  };
}

/** Creates an operator key; only its prefix and the sha-256 of its secret are stored. */
export async function createOperatorKey(
  knex: Knex | Knex.Transaction,
  options: { label?: string | null | undefined } = {},
): Promise<CreatedOperatorKey> {
  const generated = generateApiKey();
  await knex('api_keys').insert({
    prefix: generated.prefix,
    secret_hash: generated.hash,
    kind: 'operator',
    scopes: [OPERATOR_SCOPE],
    label: options.label ?? null,
  });
  const key = await findOperatorKey(knex, generated.prefix);
  if (!key) throw new Error('operator key vanished after insert');
  return { key, token: generated.token };
}

/** Every operator key, newest first. */
export async function listOperatorKeys(knex: Knex | Knex.Transaction): Promise<OperatorKeyView[]> {
  const rows = (await selectKeys(knex).orderBy('created_at', 'desc')) as OperatorKeyRow[];
  return rows.map(toView);
}

/** The operator key with this prefix, or undefined. */
export async function findOperatorKey(
  knex: Knex | Knex.Transaction,
  prefix: string,
): Promise<OperatorKeyView | undefined> {
  const row = (await selectKeys(knex).andWhere({ prefix }).first()) as OperatorKeyRow | undefined;
  return row ? toView(row) : undefined;
}

/** How many operator keys are neither revoked nor expired. */
export async function countActiveOperatorKeys(knex: Knex | Knex.Transaction): Promise<number> {
  const row = (await knex('api_keys')
    .where({ kind: 'operator' })
    .whereNull('revoked_at')
    .andWhere((query) => query.whereNull('expires_at').orWhere('expires_at', '>', knex.fn.now()))
    .count({ count: '*' })
    .first()) as { count: string | number } | undefined;
  return Number(row?.count ?? 0);
}

/** Marks the key revoked (once: a second revoke keeps the first time). */
export async function revokeOperatorKey(
  knex: Knex | Knex.Transaction,
  prefix: string,
): Promise<OperatorKeyView | undefined> {
  await knex('api_keys')
    .where({ kind: 'operator', prefix })
    .whereNull('revoked_at')
    .update({ revoked_at: knex.fn.now() });
  return findOperatorKey(knex, prefix);
}
