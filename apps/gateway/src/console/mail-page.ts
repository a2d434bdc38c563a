import type { Router } from '@koa/router';
import { listSuppressions } from '../admin/suppressions.js';
import { GatewayError } from '../http/gateway-error.js';
import type { GatewayState } from '../http/state.js';
import { cursorColumn, keyset, pageOf, queryText } from './keyset.js';
import type { ConsoleKit } from './kit.js';
import { type ConsoleLocale, TEXT } from './messages.js';
import { escapeHtml, layout, pager, select, when } from './pages.js';

const PAGE_SIZE = 50;
const STATUSES = ['queued', 'sent', 'failed'] as const;

interface OutboxRow {
  id: string;
  to_address: string;
  subject: string;
  status: (typeof STATUSES)[number];
  attempts: number;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
  cursor: string;
}

/**
 * The mail page, read-only: the outbox newest first (keyset paged, by status: the failures are one
 * click away) with each mail's attempts and last error, never its body (it is encrypted, and erased
 * once sent); and the suppressed addresses (`listSuppressions`, what `agw mail suppressions` shows).
 */
export function registerMailPage(router: Router<GatewayState>, kit: ConsoleKit): void {
  const { knex } = kit.options;
  router.get('/console/mail', async (ctx) => {
    const session = await kit.signedIn(ctx);
    if (!session) return;
    const status = queryText(ctx.query, 'status');
    if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
      throw new GatewayError('bad_request', { message: 'status must be queued, sent or failed.' });
    }
    const after = queryText(ctx.query, 'after');
    const query = knex('mail_outbox as m')
      .select(
        'm.id',
        'm.to_address',
        'm.subject',
        'm.status',
        'm.attempts',
        'm.last_error',
        'm.created_at',
        'm.sent_at',
        cursorColumn(knex, 'm.created_at', 'm.id'),
      )
      .limit(PAGE_SIZE + 1);
    keyset(query, after, 'm.created_at', 'm.id', 'desc');
    if (status !== undefined) query.where('m.status', status);
    const page = pageOf((await query) as OutboxRow[], PAGE_SIZE);
    const suppressions = await listSuppressions(knex);
    const locale = kit.localeOf(ctx);
    const text = TEXT[locale];
    const outbox = page.rows
      .map(
        (row) =>
          `<tr><td>${when(locale, row.created_at)}</td><td>${escapeHtml(row.to_address)}</td><td>${escapeHtml(row.subject)}</td><td class="status-${row.status}">${mailWord(locale, row.status)}${row.attempts > 0 ? ` <span class="tag">(${row.attempts}×)</span>` : ''}${row.last_error ? `<br><span class="tag">${escapeHtml(row.last_error.slice(0, 300))}</span>` : ''}</td></tr>`,
      )
      .join('');
    const suppressed = suppressions
      .map(
        (row) =>
          `<tr><td>${escapeHtml(row.email)}</td><td>${escapeHtml(row.reason)}</td><td>${escapeHtml(row.created_by)}</td><td>${when(locale, row.created_at)}</td></tr>`,
      )
      .join('');
    const filters = new URLSearchParams();
    if (status) filters.set('status', status);
    kit.html(
      ctx,
      200,
      layout(
        locale,
        text.mail,
        `<h1>${text.mail}</h1><p>${text.mailLead}</p>
<section aria-labelledby="outbox"><h2 id="outbox">${text.outbox}</h2>
<form method="get" action="/console/mail" class="filters" aria-label="${text.filters}">
${select('status', text.status, status, [['', text.any], ...STATUSES.map((value) => [value, mailWord(locale, value)] as const)])}
<button type="submit">${text.filter}</button></form>
${
  outbox
    ? `<table><caption>${text.outbox}</caption><thead><tr><th scope="col">${text.when}</th><th scope="col">${text.to}</th><th scope="col">${text.subject}</th><th scope="col">${text.status}</th></tr></thead><tbody>${outbox}</tbody></table>`
    : `<p>${text.noneFound}</p>`
}${pager(locale, '/console/mail', filters, page.next, after !== undefined)}</section>
<section aria-labelledby="suppressions"><h2 id="suppressions">${text.suppressions}</h2><p>${text.suppressionsLead}</p>
${
  suppressed
    ? `<table><caption>${text.suppressions}</caption><thead><tr><th scope="col">${text.address}</th><th scope="col">${text.reason}</th><th scope="col">${text.by}</th><th scope="col">${text.when}</th></tr></thead><tbody>${suppressed}</tbody></table>`
    : `<p>${text.noneFound}</p>`
}</section>`,
        session,
        'mail',
      ),
    );
  });
}

function mailWord(locale: ConsoleLocale, status: (typeof STATUSES)[number]): string {
  const text = TEXT[locale];
  return { queued: text.mailQueued, sent: text.mailSent, failed: text.mailFailed }[status];
}
