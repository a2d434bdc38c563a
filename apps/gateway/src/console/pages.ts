import type { OperatorPrincipal } from '../admin/operator-auth.js';
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

/** The console's pages, in the order of its navigation. */
const PAGES = ['approvals', 'installations', 'organizations', 'audit', 'mail'] as const;
export type ConsolePage = (typeof PAGES)[number];

/** A page of the console; `current` marks its entry in the navigation. */
export function layout(
  locale: ConsoleLocale,
  title: string,
  body: string,
  signedIn?: SignedIn,
  current?: ConsolePage,
): string {
  const text = TEXT[locale];
  const links = PAGES.map(
    (page) => `<a href="/console/${page}"${page === current ? ' aria-current="page"' : ''}>${text[page]}</a>`,
  ).join('');
  const bar = signedIn
    ? `<nav aria-label="${text.console}">${links}</nav>
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

/** A date for people, in UTC, with its machine-readable value. */
export function when(locale: ConsoleLocale, date: Date | string): string {
  const at = typeof date === 'string' ? new Date(date) : date;
  const format = new Intl.DateTimeFormat(locale === 'de' ? 'de-DE' : 'en-GB', {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'UTC',
  });
  return `<time datetime="${at.toISOString()}">${escapeHtml(format.format(at))} UTC</time>`;
}

/** The one-time notice after a post (a status), or a problem (an alert). */
export function notice(message: string | undefined, problem = false): string {
  if (message === undefined) return '';
  return problem
    ? `<p class="error" role="alert">${escapeHtml(message)}</p>`
    : `<p class="notice" role="status">${escapeHtml(message)}</p>`;
}

/** A page's paging links: back to the first page, and the next by cursor. */
export function pager(
  locale: ConsoleLocale,
  base: string,
  query: URLSearchParams,
  next: string | undefined,
  paged: boolean,
): string {
  const text = TEXT[locale];
  const first = new URLSearchParams(query);
  first.delete('after');
  const following = new URLSearchParams(first);
  if (next !== undefined) following.set('after', next);
  const href = (params: URLSearchParams) => escapeHtml(params.size > 0 ? `${base}?${params}` : base);
  const links = [
    paged ? `<a href="${href(first)}">${text.first}</a>` : '',
    next === undefined ? '' : `<a href="${href(following)}" rel="next">${text.older}</a>`,
  ].filter(Boolean);
  return links.length > 0 ? `<nav aria-label="${text.pages}">${links.join(' · ')}</nav>` : '';
}

/** A labelled text field of a filter or edit form. */
export function field(id: string, label: string, value: string | undefined, attributes = ''): string {
  return `<div class="field"><label for="${id}">${escapeHtml(label)}</label><input type="text" id="${id}" name="${id}" value="${escapeHtml(value ?? '')}" ${attributes}></div>`;
}

/** A labelled select; `options` are [value, label] pairs, the empty value first means "any". */
export function select(
  id: string,
  label: string,
  value: string | undefined,
  options: ReadonlyArray<readonly [string, string]>,
): string {
  const choices = options
    .map(
      ([optionValue, optionLabel]) =>
        `<option value="${escapeHtml(optionValue)}"${optionValue === (value ?? '') ? ' selected' : ''}>${escapeHtml(optionLabel)}</option>`,
    )
    .join('');
  return `<div class="field"><label for="${id}">${escapeHtml(label)}</label><select id="${id}" name="${id}">${choices}</select></div>`;
}

/** The hidden CSRF field of a signed-in form. */
export function csrfField(signedIn: SignedIn): string {
  return `<input type="hidden" name="csrf" value="${escapeHtml(signedIn.csrf)}">`;
}
