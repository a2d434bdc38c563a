import type { Router } from '@koa/router';
import { UUID_PATTERN } from '../admin/approvals.js';
import {
  type ApprovalStatus,
  decideInstallationAudited,
  type InstallationRow,
  type InstallationView,
  installationNotFound,
  installationView,
  selectInstallations,
} from '../admin/installations.js';
import { GatewayError } from '../http/gateway-error.js';
import type { GatewayState } from '../http/state.js';
import { cursorColumn, keyset, pageOf, queryText, uuidFilter } from './keyset.js';
import type { ConsoleKit } from './kit.js';
import { type ConsoleLocale, TEXT } from './messages.js';
import { csrfField, escapeHtml, field, layout, notice, pager, type SignedIn, select, when } from './pages.js';

const PAGE_SIZE = 25;
const STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'blocked'];
const UUID = new RegExp(UUID_PATTERN);

/**
 * The installations page: pending, approved and blocked installations (oldest first, keyset paged),
 * the owner's and the agent mailbox's verification, approve and block through the admin API's
 * `decideInstallation` (the same state change, cache invalidation and audit action as
 * `agw installations approve|block`).
 */
export function registerInstallationsPage(router: Router<GatewayState>, kit: ConsoleKit): void {
  const { knex } = kit.options;

  router.get('/console/installations', async (ctx) => {
    const session = await kit.signedIn(ctx);
    if (!session) return;
    const status = queryText(ctx.query, 'status') as ApprovalStatus | undefined;
    if (status !== undefined && !STATUSES.includes(status)) {
      throw new GatewayError('bad_request', { message: 'status must be pending, approved or blocked.' });
    }
    const organization = uuidFilter(ctx.query, 'organization');
    const after = queryText(ctx.query, 'after');
    const query = selectInstallations(knex)
      .select(cursorColumn(knex, 'i.created_at', 'i.id'))
      .limit(PAGE_SIZE + 1);
    keyset(query, after, 'i.created_at', 'i.id', 'asc');
    if (status !== undefined) query.where('i.operator_approval_status', status);
    if (organization !== undefined) query.where('i.organization_id', organization);
    const page = pageOf((await query) as Array<InstallationRow & { cursor: string }>, PAGE_SIZE);
    const locale = kit.localeOf(ctx);
    const text = TEXT[locale];
    const filters = new URLSearchParams();
    if (status) filters.set('status', status);
    if (organization) filters.set('organization', organization);
    const done = queryText(ctx.query, 'done');
    const cards = page.rows.map((row) => installationCard(locale, session, installationView(row))).join('');
    kit.html(
      ctx,
      200,
      layout(
        locale,
        text.installations,
        `<h1>${text.installations}</h1>${notice(
          done === 'approved'
            ? text.installationApproved
            : done === 'blocked'
              ? text.installationBlocked
              : undefined,
        )}<p>${text.installationsLead}</p>
<form method="get" action="/console/installations" class="filters" aria-label="${text.filters}">
${select('status', text.status, status, [['', text.any], ...STATUSES.map((value) => [value, stateWord(locale, value)] as const)])}
${field('organization', text.organizationId, organization, 'autocomplete="off"')}
<button type="submit">${text.filter}</button></form>
${cards || `<p>${text.noneFound}</p>`}${pager(locale, '/console/installations', filters, page.next, after !== undefined)}`,
        session,
        'installations',
      ),
    );
  });

  router.post('/console/installations/:id/decide', async (ctx) => {
    const posted = await kit.signedPost(ctx);
    if (!posted) return;
    const id = ctx.params.id ?? '';
    if (!UUID.test(id)) throw installationNotFound(id);
    const verb = posted.form.get('decision');
    if (verb !== 'approve' && verb !== 'block') {
      throw new GatewayError('bad_request', { message: 'decision must be approve or block.' });
    }
    const decision = verb === 'approve' ? 'approved' : 'blocked';
    const result = await kit.audited(ctx, posted.session, `installation.${verb}`, (trx) =>
      decideInstallationAudited(trx, id, decision, posted.session.operator.actor),
    );
    kit.seeOther(
      ctx,
      `/console/installations?status=${decision}&organization=${result.installation.organization.id}&done=${decision}`,
    );
  });
}

function installationCard(locale: ConsoleLocale, signedIn: SignedIn, installation: InstallationView): string {
  const text = TEXT[locale];
  const id = installation.id;
  const heading = `installation-${id}`;
  const org = installation.organization;
  const agent = {
    not_required: text.agentNotRequired,
    pending: text.agentPending,
    verified: text.verified,
  }[installation.agent_email_verification_status];
  const status = installation.operator_approval_status;
  const buttons = [
    status !== 'approved' && installation.ready_for_approval
      ? `<button type="submit" name="decision" value="approve">${text.approve}</button>`
      : '',
    status !== 'blocked'
      ? `<button type="submit" name="decision" value="block" class="deny">${text.block}</button>`
      : '',
  ].join('');
  return `<article aria-labelledby="${heading}"><h2 id="${heading}">${escapeHtml(installation.app.name)} <span class="tag">${escapeHtml(installation.app.slug)}</span></h2>
<dl><dt>${text.status}</dt><dd class="status-${status}">${stateWord(locale, status)}</dd>
<dt>${text.organization}</dt><dd><a href="/console/organizations/${org.id}">${escapeHtml(org.name)}</a>${org.is_active ? '' : ` <span class="tag">(${text.inactive})</span>`}</dd>
<dt>${text.owner}</dt><dd>${escapeHtml(installation.owner_email)} · ${installation.owner_verified ? text.verified : text.ownerPending}</dd>
<dt>${text.agentMailbox}</dt><dd>${installation.agent_email === null ? '' : `${escapeHtml(installation.agent_email)} · `}${agent}</dd>
<dt>${text.created}</dt><dd>${when(locale, installation.created_at)}</dd>
${installation.operator_decided_by ? `<dt>${text.decidedBy}</dt><dd>${escapeHtml(installation.operator_decided_by)}</dd>` : ''}
<dt>${text.id}</dt><dd><code>${id}</code> <a class="tag" href="/console/audit?installation=${id}">${text.auditTrail}</a></dd></dl>
${
  buttons
    ? `<form method="post" action="/console/installations/${id}/decide">${csrfField(signedIn)}${buttons}</form>`
    : ''
}${status !== 'approved' && !installation.ready_for_approval ? `<p class="tag">${text.notReady}</p>` : ''}</article>`;
}

function stateWord(locale: ConsoleLocale, status: ApprovalStatus): string {
  const text = TEXT[locale];
  return { pending: text.statePending, approved: text.stateApproved, blocked: text.stateBlocked }[status];
}
