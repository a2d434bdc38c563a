import type { OperatorPrincipal } from '../admin/operator-auth.js';
import type { QueuedApproval } from './approval-queue.js';
import { maskParams } from './mask-params.js';
import { type ConsoleLocale, TEXT } from './messages.js';

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** Who is signed in and the CSRF token of their forms. */
export interface SignedIn {
  readonly operator: OperatorPrincipal;
  readonly csrf: string;
}

function layout(locale: ConsoleLocale, title: string, body: string, signedIn?: SignedIn): string {
  const text = TEXT[locale];
  const bar = signedIn
    ? `<nav aria-label="${text.console}"><a href="/console/approvals">${text.approvals}</a></nav>
<form method="post" action="/console/sign-out"><span>${text.signedInAs} <strong>${escapeHtml(signedIn.operator.prefix)}</strong></span>
<input type="hidden" name="csrf" value="${escapeHtml(signedIn.csrf)}"><button type="submit">${text.signOut}</button></form>`
    : '';
  return `<!doctype html><html lang="${locale}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)} · ${text.console}</title>
<meta name="robots" content="noindex"><link rel="stylesheet" href="/console/assets/console.css"></head>
<body><a class="skip" href="#main">${locale === 'de' ? 'Zum Inhalt' : 'Skip to content'}</a>
<header><strong>${text.console}</strong>${bar}</header>
<main id="main">${body}</main></body></html>`;
}

/** The sign-in page; `problem` says why the last attempt failed. */
export function renderSignIn(locale: ConsoleLocale, csrf: string, problem?: string): string {
  const text = TEXT[locale];
  return layout(
    locale,
    text.signInTitle,
    `<h1>${text.signInTitle}</h1>
${problem ? `<p class="error" role="alert">${escapeHtml(problem)}</p>` : ''}
<p>${text.signInLead}</p>
<form method="post" action="/console/sign-in">
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<label for="operator_key">${text.operatorKey}</label>
<input type="password" id="operator_key" name="operator_key" required autocomplete="current-password" spellcheck="false">
<button type="submit">${text.signIn}</button></form>`,
  );
}

/** What the approvals page shows. */
export interface ApprovalsModel {
  readonly locale: ConsoleLocale;
  readonly signedIn: SignedIn;
  readonly approvals: readonly QueuedApproval[];
  /** Risk and cost of each capability version (`id@version`), from the catalog. */
  readonly facts: (capabilityId: string, version: string) => { risk: string; cost: string } | undefined;
  readonly next: string | undefined;
  /** Whether this is a later page (a link back to the oldest is shown). */
  readonly paged: boolean;
  /** The outcome of the decision just made, shown once. */
  readonly notice?: 'approved' | 'denied' | 'conflict' | undefined;
}

function when(locale: ConsoleLocale, date: Date): string {
  const format = new Intl.DateTimeFormat(locale === 'de' ? 'de-DE' : 'en-GB', {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'UTC',
  });
  return `<time datetime="${date.toISOString()}">${escapeHtml(format.format(date))} UTC</time>`;
}

function paramsTable(locale: ConsoleLocale, approval: QueuedApproval): string {
  const text = TEXT[locale];
  if (approval.params === undefined) {
    return `<p>${text.paramsUnknown} <code>${escapeHtml(approval.params_hash)}</code></p>`;
  }
  const rows = maskParams(approval.params)
    .map(
      (row) =>
        `<tr><th scope="row">${escapeHtml(row.label)}</th>${
          row.masked
            ? `<td class="masked">${escapeHtml(row.value)} <span class="tag">(${text.masked})</span></td>`
            : `<td>${escapeHtml(row.value)}</td>`
        }</tr>`,
    )
    .join('');
  return `<table><caption>${text.parameters}</caption><thead><tr><th scope="col">${text.field}</th><th scope="col">${text.value}</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function approvalCard(model: ApprovalsModel, approval: QueuedApproval): string {
  const text = TEXT[model.locale];
  const facts = model.facts(approval.capability_id, approval.capability_version);
  const id = approval.approval_id;
  const heading = `approval-${id}`;
  const risk = facts?.risk ?? '?';
  return `<article aria-labelledby="${heading}"><h2 id="${heading}">${escapeHtml(approval.capability_id)} <span class="tag">${escapeHtml(approval.capability_version)}</span></h2>
<dl><dt>${text.organization}</dt><dd>${escapeHtml(approval.organization_name)} <span class="tag">${approval.organization_id}</span></dd>
<dt>${text.installation}</dt><dd>${escapeHtml(approval.app_name)} <span class="tag">${escapeHtml(approval.app_slug)}</span></dd>
<dt>${text.risk}</dt><dd class="risk-${escapeHtml(risk)}">${escapeHtml(risk)}</dd>
<dt>${text.cost}</dt><dd>${escapeHtml(facts?.cost ?? '?')} ${text.credits}</dd>
<dt>${text.reason}</dt><dd>${escapeHtml(approval.reason)}</dd>
<dt>${text.waitingSince}</dt><dd>${when(model.locale, approval.created_at)}</dd>
<dt>${text.expires}</dt><dd>${when(model.locale, approval.expires_at)}</dd></dl>
${paramsTable(model.locale, approval)}
<form method="post" action="/console/approvals/${id}/decide">
<input type="hidden" name="csrf" value="${escapeHtml(model.signedIn.csrf)}">
<label for="note-${id}">${text.note}</label><textarea id="note-${id}" name="note" rows="2" maxlength="500"></textarea>
<button type="submit" name="decision" value="approve">${text.approve}</button><button type="submit" name="decision" value="deny" class="deny">${text.deny}</button>
</form></article>`;
}

/** The queue of waiting approvals, oldest first. */
export function renderApprovals(model: ApprovalsModel): string {
  const text = TEXT[model.locale];
  const notice =
    model.notice === undefined
      ? ''
      : model.notice === 'conflict'
        ? `<p class="error" role="alert">${text.alreadyDecided}</p>`
        : `<p class="notice" role="status">${model.notice === 'approved' ? text.approved : text.denied}</p>`;
  const cards = model.approvals.map((approval) => approvalCard(model, approval)).join('');
  const paging = [
    model.paged ? `<a href="/console/approvals">${text.first}</a>` : '',
    model.next
      ? `<a href="/console/approvals?after=${encodeURIComponent(model.next)}" rel="next">${text.older}</a>`
      : '',
  ]
    .filter(Boolean)
    .join(' · ');
  return layout(
    model.locale,
    text.approvals,
    `<h1>${text.approvals}</h1>${notice}<p>${text.approvalsLead}</p>
${cards || `<p>${text.none}</p>`}${paging ? `<nav aria-label="${text.pages}">${paging}</nav>` : ''}`,
    model.signedIn,
  );
}
