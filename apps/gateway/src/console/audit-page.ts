import type { Router } from '@koa/router';
import { type AuditEventView, listAuditEvents } from '../admin/audit-log.js';
import { verifyAuditChain } from '../audit-chain/verify.js';
import { GatewayError } from '../http/gateway-error.js';
import type { GatewayState } from '../http/state.js';
import { queryText, uuidFilter } from './keyset.js';
import type { ConsoleKit } from './kit.js';
import { type ConsoleLocale, TEXT } from './messages.js';
import { escapeHtml, field, layout, notice, pager, select, when } from './pages.js';

const PAGE_SIZE = 50;
const OUTCOMES = [
  'allowed',
  'succeeded',
  'failed',
  'denied',
  'pending_approval',
  'accepted',
  'simulated',
  'info',
];
const CAPABILITY_ID = /^[a-z0-9_.]{1,100}$/;
const AUDIT_ID = /^[A-Za-z0-9_-]{1,100}$/;
// What a datetime-local field sends (read as UTC), or a full ISO 8601 instant.
const MINUTE = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,6})?)?(Z)?$/;

/**
 * The audit page: the admin API's `listAuditEvents` (newest first, keyset paged) filtered by
 * organization, installation, capability, outcome and time; one record with its guard trace; and the
 * hash chain's verification (`verifyAuditChain`, what `agw audit verify` runs) on a button.
 */
export function registerAuditPage(router: Router<GatewayState>, kit: ConsoleKit): void {
  const { knex } = kit.options;
  const capabilities = [...new Set(kit.options.catalog.map((contract) => contract.id))].sort();

  router.get('/console/audit', async (ctx) => {
    const session = await kit.signedIn(ctx);
    if (!session) return;
    const filter = {
      organization: uuidFilter(ctx.query, 'organization'),
      installation: uuidFilter(ctx.query, 'installation'),
      capability: queryText(ctx.query, 'capability'),
      outcome: queryText(ctx.query, 'outcome'),
      since: queryText(ctx.query, 'since'),
      until: queryText(ctx.query, 'until'),
    };
    if (filter.capability !== undefined && !CAPABILITY_ID.test(filter.capability)) {
      throw new GatewayError('bad_request', { message: 'capability must be a capability id.' });
    }
    if (filter.outcome !== undefined && !OUTCOMES.includes(filter.outcome)) {
      throw new GatewayError('bad_request', { message: `outcome must be one of ${OUTCOMES.join(', ')}.` });
    }
    const instant = (name: 'since' | 'until') => {
      const value = filter[name];
      if (value === undefined) return undefined;
      if (!MINUTE.test(value) || Number.isNaN(Date.parse(`${value.replace(/Z$/, '')}Z`))) {
        throw new GatewayError('bad_request', { message: `${name} must be a date and time (UTC).` });
      }
      return `${value.replace(/Z$/, '')}Z`;
    };
    const after = queryText(ctx.query, 'after');
    if (after !== undefined && !/^[A-Za-z0-9_-]{1,200}$/.test(after)) {
      throw new GatewayError('bad_request', {
        message: 'The page cursor is not one the console handed out.',
      });
    }
    const clean = Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined));
    const page = await listAuditEvents(knex, {
      ...clean,
      ...(instant('since') === undefined ? {} : { since: instant('since') }),
      ...(instant('until') === undefined ? {} : { until: instant('until') }),
      ...(after === undefined ? {} : { cursor: after }),
      limit: PAGE_SIZE,
    });
    const locale = kit.localeOf(ctx);
    const text = TEXT[locale];
    const rows = page.events
      .map(
        (event) =>
          `<tr><td><a href="/console/audit/${encodeURIComponent(event.audit_id)}">${when(locale, event.occurred_at)}</a></td><td>${escapeHtml(event.action)}${subject(event)}</td><td class="outcome-${escapeHtml(event.outcome)}">${escapeHtml(event.outcome)}</td><td>${escapeHtml(event.actor)}</td></tr>`,
      )
      .join('');
    kit.html(
      ctx,
      200,
      layout(
        locale,
        text.audit,
        `<h1>${text.audit}</h1><p>${text.auditLead}</p>
<form method="get" action="/console/audit/verify" class="inline"><button type="submit">${text.verifyChain}</button></form>
<form method="get" action="/console/audit" class="filters" aria-label="${text.filters}">
${field('organization', text.organizationId, filter.organization, 'autocomplete="off"')}
${field('installation', text.installationId, filter.installation, 'autocomplete="off"')}
${select('capability', text.capability, filter.capability, [['', text.any], ...capabilities.map((id) => [id, id] as const)])}
${select('outcome', text.outcome, filter.outcome, [['', text.any], ...OUTCOMES.map((value) => [value, value] as const)])}
<div class="field"><label for="since">${text.since}</label><input type="datetime-local" id="since" name="since" value="${escapeHtml(filter.since ?? '')}"></div>
<div class="field"><label for="until">${text.until}</label><input type="datetime-local" id="until" name="until" value="${escapeHtml(filter.until ?? '')}"></div>
<button type="submit">${text.filter}</button></form>
${
  rows
    ? `<table><caption>${text.auditRecords}</caption><thead><tr><th scope="col">${text.when}</th><th scope="col">${text.action}</th><th scope="col">${text.outcome}</th><th scope="col">${text.actor}</th></tr></thead><tbody>${rows}</tbody></table>`
    : `<p>${text.noneFound}</p>`
}${pager(locale, '/console/audit', new URLSearchParams(clean as Record<string, string>), page.next_cursor ?? undefined, after !== undefined)}`,
        session,
        'audit',
      ),
    );
  });

  router.get('/console/audit/verify', async (ctx) => {
    const session = await kit.signedIn(ctx);
    if (!session) return;
    const result = await verifyAuditChain(knex);
    const locale = kit.localeOf(ctx);
    const text = TEXT[locale];
    kit.html(
      ctx,
      200,
      layout(
        locale,
        text.chainTitle,
        `<h1>${text.chainTitle}</h1>${notice(
          result.ok ? text.chainOk : `${text.chainBroken} ${result.first_bad?.message ?? ''}`,
          !result.ok,
        )}
<dl><dt>${text.sealed}</dt><dd>${result.sealed}</dd><dt>${text.unsealed}</dt><dd>${result.unsealed}</dd>
<dt>${text.head}</dt><dd>${result.head ? `seq ${result.head.seq} · <code>${result.head.hash}</code>` : '—'}</dd>
<dt>${text.verifiedAt}</dt><dd>${when(locale, result.verified_at)}</dd></dl>
<p><a href="/console/audit">${text.backToAudit}</a></p>`,
        session,
        'audit',
      ),
    );
  });

  router.get('/console/audit/:audit_id', async (ctx) => {
    const session = await kit.signedIn(ctx);
    if (!session) return;
    const id = ctx.params.audit_id ?? '';
    const [event] = AUDIT_ID.test(id) ? (await listAuditEvents(knex, { audit_id: id, limit: 1 })).events : [];
    if (event === undefined) throw new GatewayError('not_found', { message: `No audit record ${id}.` });
    const locale = kit.localeOf(ctx);
    kit.html(ctx, 200, layout(locale, event.action, recordHtml(locale, event), session, 'audit'));
  });
}

function subject(event: AuditEventView): string {
  const target = event.details.target_id ?? event.details.capability_id;
  return typeof target === 'string' ? ` <span class="tag">${escapeHtml(target)}</span>` : '';
}

function recordHtml(locale: ConsoleLocale, event: AuditEventView): string {
  const text = TEXT[locale];
  const { trace, ...details } = event.details;
  const steps = Array.isArray(trace)
    ? (trace as Array<Record<string, unknown>>)
        .map(
          (step) =>
            `<tr><td>${escapeHtml(String(step.guard))}</td><td>${escapeHtml(String(step.phase ?? ''))}</td><td class="outcome-${escapeHtml(String(step.outcome))}">${escapeHtml(String(step.outcome))}${step.shadow ? ' (shadow)' : ''}</td><td>${escapeHtml(String(step.code ?? ''))}</td><td>${escapeHtml(String(step.duration_ms ?? ''))}</td></tr>`,
        )
        .join('')
    : '';
  const fields = Object.entries(details)
    .map(
      ([name, value]) =>
        `<tr><th scope="row">${escapeHtml(name)}</th><td>${escapeHtml(typeof value === 'string' ? value : JSON.stringify(value))}</td></tr>`,
    )
    .join('');
  return `<h1>${escapeHtml(event.action)}</h1>
<dl><dt>${text.when}</dt><dd>${when(locale, event.occurred_at)} <span class="tag">${escapeHtml(event.occurred_at)}</span></dd>
<dt>${text.outcome}</dt><dd>${escapeHtml(event.outcome)} (HTTP ${event.http_status})</dd>
<dt>${text.actor}</dt><dd>${escapeHtml(event.actor)}</dd>
<dt>${text.auditId}</dt><dd><code>${escapeHtml(event.audit_id)}</code></dd>
<dt>${text.requestId}</dt><dd><code>${escapeHtml(event.request_id)}</code></dd>
<dt>${text.chainSeq}</dt><dd>${event.seq ?? text.notSealedYet}</dd></dl>
${
  steps
    ? `<table><caption>${text.guardTrace}</caption><thead><tr><th scope="col">${text.guard}</th><th scope="col">${text.phase}</th><th scope="col">${text.outcome}</th><th scope="col">${text.code}</th><th scope="col">ms</th></tr></thead><tbody>${steps}</tbody></table>`
    : ''
}<table><caption>${text.details}</caption><tbody>${fields}</tbody></table>
<p><a href="/console/audit">${text.backToAudit}</a></p>`;
}
