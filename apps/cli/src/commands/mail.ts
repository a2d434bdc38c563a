import type { CommandContext } from '../context.js';
import { findMailboxMessage, listMailbox, mailboxDir } from '../mailbox.js';
import { type OperatorFlags, operatorClient, resolveDataDir, withGateway } from '../operator-context.js';
import { colorsFor, formatTime, renderFields, renderTable, writeJson } from '../output.js';

/** Flags of the dev-mailbox commands (they read files; no gateway call). */
export interface MailboxFlags {
  readonly dataDir?: string | undefined;
  readonly json?: boolean | undefined;
}

/** `agw mail list`: the dev mailbox under DATA_DIR/mail, oldest first. */
export async function mailList(flags: MailboxFlags, context: CommandContext): Promise<void> {
  const dataDir = resolveDataDir(flags, context);
  const messages = await listMailbox(dataDir);
  if (flags.json) {
    writeJson(context.io, { messages });
    return;
  }
  if (messages.length === 0) {
    context.io.stdout(`No messages in ${mailboxDir(dataDir)}.\n`);
    return;
  }
  const colors = colorsFor(context.io, context.env);
  const rows = messages.map((message) => [
    message.id,
    formatTime(toIso(message.date)),
    message.to,
    message.subject,
  ]);
  context.io.stdout(renderTable(['ID', 'DATE', 'TO', 'SUBJECT'], rows, colors));
}

/** `agw mail show <id>`: the headers and decoded text body of one message. */
export async function mailShow(id: string, flags: MailboxFlags, context: CommandContext): Promise<void> {
  const message = await findMailboxMessage(resolveDataDir(flags, context), id);
  if (flags.json) {
    writeJson(context.io, { message });
    return;
  }
  const colors = colorsFor(context.io, context.env);
  context.io.stdout(
    renderFields(
      [
        ['From', message.from],
        ['To', message.to],
        ['Subject', message.subject],
        ['Date', message.date],
        ['Message-ID', message.message_id],
      ],
      colors,
    ),
  );
  context.io.stdout(`\n${message.body.replace(/\n*$/, '')}\n`);
}

/** Flags of `agw mail suppress`. */
export interface SuppressFlags extends OperatorFlags {
  readonly reason?: string | undefined;
}

/** `agw mail suppress <email>`: the gateway stops mailing the address (codes report `suppressed`). */
export async function mailSuppress(
  email: string,
  flags: SuppressFlags,
  context: CommandContext,
): Promise<void> {
  const client = await operatorClient(flags, context);
  const result = await withGateway(() => client.suppressMail(email, flags.reason));
  if (flags.json) {
    writeJson(context.io, result);
    return;
  }
  context.io.stdout(
    `${result.created ? 'Suppressed' : 'Already suppressed, reason updated:'} ${result.suppression.email} (${result.suppression.reason}). audit_id ${result.audit_id}\n`,
  );
}

/** `agw mail unsuppress <email>`: the gateway mails the address again. */
export async function mailUnsuppress(
  email: string,
  flags: OperatorFlags,
  context: CommandContext,
): Promise<void> {
  const client = await operatorClient(flags, context);
  const result = await withGateway(() => client.unsuppressMail(email));
  if (flags.json) {
    writeJson(context.io, result);
    return;
  }
  context.io.stdout(
    result.removed
      ? `${result.email} is no longer suppressed. audit_id ${result.audit_id}\n`
      : `${result.email} was not suppressed; nothing changed.\n`,
  );
}

/** `agw mail suppressions`: every suppressed address. */
export async function mailSuppressions(flags: OperatorFlags, context: CommandContext): Promise<void> {
  const client = await operatorClient(flags, context);
  const suppressions = await withGateway(() => client.listMailSuppressions());
  if (flags.json) {
    writeJson(context.io, { suppressions });
    return;
  }
  if (suppressions.length === 0) {
    context.io.stdout('No suppressed addresses.\n');
    return;
  }
  const rows = suppressions.map((entry) => [
    entry.email,
    entry.reason,
    formatTime(entry.created_at),
    entry.created_by,
  ]);
  context.io.stdout(
    renderTable(['EMAIL', 'REASON', 'SINCE', 'BY'], rows, colorsFor(context.io, context.env)),
  );
}

function toIso(date: string): string | null {
  const parsed = Date.parse(date);
  return Number.isNaN(parsed) ? null : new Date(parsed).toISOString();
}
