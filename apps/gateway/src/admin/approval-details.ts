import type { CapabilityHandler } from '@agw/capabilities';
import { systemClock } from '@agw/guard';
import type { Knex } from 'knex';
import { runPreflight } from '../invoke/preflight.js';
import { byCapabilityKey, capabilityKey } from '../meta-tools/capability-key.js';
import type { CatalogContract } from '../meta-tools/catalog.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { RunApprovalView } from './approvals.js';
import { maskParams, type ParamRow } from './mask-params.js';

/**
 * What the admin API and the console need to say more of an approval than its row, built once
 * ({@link approvalFacts}): the contract and the handler of each capability version, by
 * `capabilityKey` (src/meta-tools/capability-key.ts).
 */
export interface ApprovalFacts {
  /** Decrypts the params an approval keeps (purpose `approval-params`). */
  readonly box: SecretBox;
  readonly contracts: ReadonlyMap<string, CatalogContract>;
  readonly handlers: ReadonlyMap<string, CapabilityHandler<never>>;
}

/** The facts of the catalog's capability versions and their handlers. */
export function approvalFacts(
  box: SecretBox,
  catalog: readonly CatalogContract[],
  handlers: readonly CapabilityHandler<never>[],
): ApprovalFacts {
  return {
    box,
    contracts: new Map(catalog.map((contract) => [capabilityKey(contract.id, contract.version), contract])),
    handlers: byCapabilityKey(handlers),
  };
}

/**
 * The capability's own checks of a waiting call's params, run when asked (the invoice may have been
 * paid since the agent asked): `passes`, `none` (no check and no preflight: nothing beyond the schema is
 * known), `violations`, `unknown` (not pending, no params kept, or the handler of that version is gone)
 * or `failed` (the check itself threw).
 */
export type PreflightVerdict =
  | { readonly verdict: 'passes' | 'none' | 'unknown' | 'failed' }
  | {
      readonly verdict: 'violations';
      readonly violations: ReadonlyArray<{ readonly schema_pointer: string; readonly message: string }>;
    };

/** An approval as `GET /admin/approvals/:id` answers it: the console's facts beside the row. */
export interface ApprovalDetailView extends RunApprovalView {
  /** The params as labelled rows, secrets masked as the console shows them; null when none were kept. */
  readonly params: readonly ParamRow[] | null;
  readonly risk_level: string | null;
  /** The catalog's cost of one run of that capability version; null when the catalog no longer lists it. */
  readonly estimated_cost_credits: string | null;
  readonly preflight: PreflightVerdict;
}

/** The approval's masked params (from the `paramsCiphertext` it keeps), risk, cost and preflight verdict. */
export async function approvalDetails(
  knex: Knex,
  facts: ApprovalFacts,
  approval: RunApprovalView,
  paramsCiphertext: Buffer | Uint8Array | null,
): Promise<ApprovalDetailView> {
  const params = decryptApprovalParams(facts.box, paramsCiphertext);
  const key = capabilityKey(approval.capability_id, approval.capability_version);
  const contract = facts.contracts.get(key);
  const handler = facts.handlers.get(key);
  return {
    ...approval,
    params: params === undefined ? null : maskParams(params),
    risk_level: contract?.risk_level ?? null,
    estimated_cost_credits: contract?.cost_credits ?? null,
    preflight:
      approval.status === 'pending'
        ? await preflightVerdict(knex, handler, approval, params)
        : { verdict: 'unknown' },
  };
}

/** The preflight verdict of a waiting call's `params` (the admin API's and the console's). */
export async function preflightVerdict(
  knex: Knex,
  handler: CapabilityHandler<never> | undefined,
  approval: { readonly organization_id: string; readonly installation_id: string },
  params: unknown,
): Promise<PreflightVerdict> {
  if (params === undefined || handler === undefined) return { verdict: 'unknown' };
  if (handler.check === undefined && handler.preflight === undefined) return { verdict: 'none' };
  try {
    const { violations } = await runPreflight({ knex, clock: systemClock }, handler, params, approval);
    if (violations.length === 0) return { verdict: 'passes' };
    return {
      verdict: 'violations',
      violations: violations.map(({ schema_pointer, message }) => ({ schema_pointer, message })),
    };
  } catch {
    return { verdict: 'failed' };
  }
}

/**
 * The params an approval keeps. Undefined when none were kept, or when they were encrypted under another
 * SECRET_KEY: the operator then sees the params hash only, as for an approval stored before params were kept.
 */
export function decryptApprovalParams(box: SecretBox, ciphertext: Buffer | Uint8Array | null): unknown {
  if (ciphertext === null) return undefined;
  try {
    return JSON.parse(box.decrypt('approval-params', Buffer.from(ciphertext)).toString('utf8'));
  } catch {
    return undefined;
  }
}
