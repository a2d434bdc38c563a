import type { AuditChainAnchor, AuditChainVerification, AuditEvent } from '@agw/client/admin';
import type { CommandContext } from '../context.js';
import { EXIT, ExitError } from '../io.js';
import { type OperatorFlags, operatorClient, withGateway } from '../operator-context.js';
import { type Colors, colorsFor, nextPageHint, renderFields, renderTable, writeJson } from '../output.js';
import { parseLimit } from '../paging.js';

/**
 * Exit code of `agw audit verify` when the chain does not verify: distinct from every gateway or
 * usage failure, so a cron job can tell "tampered" from "could not check".
 */
export const EXIT_AUDIT_TAMPERED = 7;

/** Flags of `agw audit list`. */
export interface AuditListFlags extends OperatorFlags {
  readonly org?: string | undefined;
  readonly installation?: string | undefined;
  readonly actor?: string | undefined;
  readonly action?: string | undefined;
  readonly outcome?: string | undefined;
  readonly since?: string | undefined;
  readonly limit?: string | undefined;
  readonly cursor?: string | undefined;
}

/** `agw audit list`: audit rows, newest first, one page (`--cursor` for the next). */
export async function auditList(flags: AuditListFlags, context: CommandContext): Promise<void> {
  const limit = flags.limit === undefined ? undefined : parseLimit(flags.limit, 500);
  const client = await operatorClient(flags, context);
  const page = await withGateway(() =>
    client.listAuditEvents({
      ...(flags.org ? { organization: flags.org } : {}),
      ...(flags.installation ? { installation: flags.installation } : {}),
      ...(flags.actor ? { actor: flags.actor } : {}),
      ...(flags.action ? { action: flags.action } : {}),
      ...(flags.outcome ? { outcome: flags.outcome } : {}),
      ...(flags.since ? { since: flags.since } : {}),
      ...(flags.cursor ? { cursor: flags.cursor } : {}),
      ...(limit === undefined ? {} : { limit }),
    }),
  );
  if (flags.json) {
    writeJson(context.io, page);
    return;
  }
  if (page.events.length === 0) {
    context.io.stdout('No audit rows.\n');
    return;
  }
  const colors = colorsFor(context.io, context.env);
  const rows = page.events.map((event) => [
    event.seq === null ? colors.dim('-') : String(event.seq),
    event.occurred_at.replace('T', ' ').slice(0, 19),
    event.actor,
    event.action,
    outcomeText(event, colors),
    String(event.http_status),
    event.audit_id,
  ]);
  context.io.stdout(
    renderTable(['SEQ', 'TIME (UTC)', 'ACTOR', 'ACTION', 'OUTCOME', 'HTTP', 'AUDIT ID'], rows, colors) +
      nextPageHint(page.next_cursor, colors),
  );
}

/** Flags of `agw audit verify`. */
export interface AuditVerifyFlags extends OperatorFlags {
  /** `<seq>:<hash>` of a head recorded earlier. */
  readonly anchor?: string | undefined;
}

/**
 * `agw audit verify`: recomputes the hash chain on the gateway. Exit 0 when intact, 7
 * ({@link EXIT_AUDIT_TAMPERED}) when a row was changed or deleted, or the anchored head is gone.
 */
export async function auditVerify(flags: AuditVerifyFlags, context: CommandContext): Promise<void> {
  const anchor = flags.anchor === undefined ? undefined : parseAnchor(flags.anchor);
  const client = await operatorClient(flags, context);
  const result = await withGateway(() => client.verifyAuditLog(anchor));
  if (flags.json) writeJson(context.io, result);
  else context.io.stdout(describeVerification(result, colorsFor(context.io, context.env)));
  if (!result.ok && result.first_bad) {
    const bad = result.first_bad;
    throw new ExitError(
      EXIT_AUDIT_TAMPERED,
      `audit log tampered at seq ${bad.seq} (${bad.reason}): ${bad.message}`,
    );
  }
}

function describeVerification(result: AuditChainVerification, colors: Colors): string {
  const fields: Array<[string, string]> = [
    ['result', result.ok ? colors.green('intact') : colors.red('TAMPERED')],
    ['sealed rows', String(result.sealed)],
    ['not yet sealed', String(result.unsealed)],
    ['head', result.head ? `seq ${result.head.seq} ${result.head.hash}` : '-'],
  ];
  if (result.first_bad) {
    fields.push(
      ['first bad seq', String(result.first_bad.seq)],
      ['reason', `${result.first_bad.reason}: ${result.first_bad.message}`],
      ['audit id', result.first_bad.audit_id ?? '-'],
    );
  }
  fields.push(['verified at', result.verified_at]);
  const hint =
    result.ok && result.head
      ? colors.dim(`Anchor for later: --anchor ${result.head.seq}:${result.head.hash}\n`)
      : '';
  return `${renderFields(fields, colors)}${hint}`;
}

function outcomeText(event: AuditEvent, colors: Colors): string {
  if (event.outcome === 'succeeded' || event.outcome === 'allowed') return colors.green(event.outcome);
  if (event.outcome === 'denied' || event.outcome === 'failed') return colors.red(event.outcome);
  return event.outcome;
}

function parseAnchor(value: string): AuditChainAnchor {
  const match = /^([1-9]\d{0,14}):([0-9a-f]{64})$/.exec(value);
  if (!match?.[1] || !match[2]) {
    throw new ExitError(
      EXIT.usage,
      `--anchor must be <seq>:<64 hex hash> as printed by \`agw audit verify\`, got '${value.slice(0, 80)}'`,
    );
  }
  return { seq: Number(match[1]), hash: match[2] };
}
