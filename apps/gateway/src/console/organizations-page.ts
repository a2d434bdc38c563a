import { randomUUID } from 'node:crypto';
import type { Router } from '@koa/router';
import { UUID_PATTERN } from '../admin/approvals.js';
import { listOrganizations } from '../admin/organization-list.js';
import {
  type PolicyPatch,
  type PolicyView,
  patchPolicyAudited,
  validatePolicyPatch,
} from '../admin/policies.js';
import {
  creditWalletAudited,
  organizationNotFound,
  validateCreditBody,
  type WalletView,
  walletOf,
} from '../admin/wallets.js';
import { GatewayError } from '../http/gateway-error.js';
import type { GatewayState } from '../http/state.js';
import { parseIdempotencyKey } from '../idempotency/key-header.js';
import { queryText } from './keyset.js';
import type { ConsoleKit, Context, Session } from './kit.js';
import { type ConsoleLocale, TEXT } from './messages.js';
import { csrfField, escapeHtml, field, layout, notice, pager, when } from './pages.js';

const PAGE_SIZE = 25;
const UUID = new RegExp(UUID_PATTERN);
const CAPS = [
  'task_cap_credits',
  'daily_cap_credits',
  'monthly_cap_credits',
  'burn_rate_hourly_cap_credits',
] as const;
const CREDITS_PATTERN = '(0|[1-9][0-9]{0,13})(\\.[0-9]{1,6})?';

interface OrganizationRow {
  id: string;
  name: string;
  short_id: string;
  is_active: boolean;
  created_at: Date;
  cursor: string;
}

/**
 * The organizations page: every organization (by name, keyset paged, a name filter) with its
 * wallet balance, today's spend, caps and kill switch; one organization's wallet, ledger and policy,
 * credit it and edit its policy through the admin API's `creditWallet` and `patchPolicy`.
 *
 * The list is the admin API's `listOrganizations` (by name, keyset paged, one statement per page, the
 * money as the billing guard computes it), so the page shows what the guard judges.
 */
export function registerOrganizationsPage(router: Router<GatewayState>, kit: ConsoleKit): void {
  const { knex } = kit.options;

  router.get('/console/organizations', async (ctx) => {
    const session = await kit.signedIn(ctx);
    if (!session) return;
    const name = queryText(ctx.query, 'name')?.slice(0, 100);
    const after = queryText(ctx.query, 'after');
    const { organizations, next_cursor } = await listOrganizations(knex, {
      limit: PAGE_SIZE,
      cursor: after,
      nameContains: name,
    });
    const locale = kit.localeOf(ctx);
    const text = TEXT[locale];
    const filters = new URLSearchParams();
    if (name) filters.set('name', name);
    const cards = organizations
      .map((row) => {
        const { wallet } = row;
        const heading = `organization-${row.id}`;
        return `<article aria-labelledby="${heading}"><h2 id="${heading}"><a href="/console/organizations/${row.id}">${escapeHtml(row.name)}</a> <span class="tag">${escapeHtml(row.short_id)}</span></h2>
<dl>${row.is_active ? '' : `<dt>${text.status}</dt><dd>${text.inactive}</dd>`}
<dt>${text.balance}</dt><dd>${wallet.balance_credits} ${text.credits}</dd>
<dt>${text.spentToday}</dt><dd>${wallet.spent.today_credits} ${text.credits}</dd>
<dt>${text.caps}</dt><dd>${capsSummary(locale, wallet.policy)}</dd>
<dt>${text.killSwitch}</dt><dd>${wallet.policy.kill_switch_enabled ? `<strong class="risk-high">${text.on}</strong>` : text.off}</dd></dl></article>`;
      })
      .join('');
    kit.html(
      ctx,
      200,
      layout(
        locale,
        text.organizations,
        `<h1>${text.organizations}</h1><p>${text.organizationsLead}</p>
<form method="get" action="/console/organizations" class="filters" aria-label="${text.filters}">
${field('name', text.name, name, 'autocomplete="off"')}<button type="submit">${text.filter}</button></form>
${cards || `<p>${text.noneFound}</p>`}${pager(locale, '/console/organizations', filters, next_cursor ?? undefined, after !== undefined)}`,
        session,
        'organizations',
      ),
    );
  });

  const showOrganization = async (ctx: Context, session: Session, id: string, problem?: string) => {
    const organization = (await knex('organizations')
      .where({ id })
      .first('id', 'name', 'short_id', 'is_active')) as
      | Omit<OrganizationRow, 'cursor' | 'created_at'>
      | undefined;
    if (!organization) throw organizationNotFound(id);
    // The organization is found: its wallet, and the policy the wallet's snapshot read with it.
    const wallet = await walletOf(knex, id);
    const policy = { organization_id: id, ...wallet.policy };
    const locale = kit.localeOf(ctx);
    const text = TEXT[locale];
    const done = queryText(ctx.query, 'done');
    kit.html(
      ctx,
      problem === undefined ? 200 : 400,
      layout(
        locale,
        organization.name,
        `<h1>${escapeHtml(organization.name)} <span class="tag">${escapeHtml(organization.short_id)}</span></h1>
${problem === undefined ? notice(done === 'credited' ? text.credited : done === 'policy' ? text.policySaved : undefined) : notice(problem, true)}
<p>${organization.is_active ? '' : `${text.inactive} · `}<a href="/console/installations?organization=${id}">${text.installations}</a> · <a href="/console/approvals?organization=${id}">${text.approvals}</a> · <a href="/console/audit?organization=${id}">${text.auditTrail}</a></p>
${walletSection(locale, session, wallet)}
${policySection(locale, session, policy)}`,
        session,
        'organizations',
      ),
    );
  };

  router.get('/console/organizations/:id', async (ctx) => {
    const session = await kit.signedIn(ctx);
    if (!session) return;
    await showOrganization(ctx, session, organizationParam(ctx));
  });

  router.post('/console/organizations/:id/credit', async (ctx) => {
    const posted = await kit.signedPost(ctx);
    if (!posted) return;
    const id = organizationParam(ctx);
    const { form } = posted;
    try {
      const memo = form.get('memo')?.trim();
      const body = validateCreditBody({
        amount: form.get('amount')?.trim() ?? '',
        ...(memo ? { memo } : {}),
      });
      // The form's own key: a double submit or a reload replays the first credit instead of paying twice.
      const key = parseIdempotencyKey(form.get('idempotency_key') ?? '');
      await kit.audited(ctx, posted.session, 'wallet.credit', (trx) =>
        creditWalletAudited(trx, id, body, key),
      );
    } catch (thrown) {
      if (!(thrown instanceof GatewayError) || thrown.code === 'not_found') throw thrown;
      return showOrganization(
        ctx,
        posted.session,
        id,
        `${TEXT[kit.localeOf(ctx)].creditRefused} ${thrown.message}`,
      );
    }
    kit.seeOther(ctx, `/console/organizations/${id}?done=credited`);
  });

  router.post('/console/organizations/:id/policy', async (ctx) => {
    const posted = await kit.signedPost(ctx);
    if (!posted) return;
    const id = organizationParam(ctx);
    const { form } = posted;
    const patch: Record<string, unknown> = { kill_switch_enabled: form.get('kill_switch') === 'on' };
    // An empty cap field means "no cap".
    for (const cap of CAPS) patch[cap] = form.get(cap)?.trim() || null;
    try {
      const valid: PolicyPatch = validatePolicyPatch(patch);
      await kit.audited(ctx, posted.session, 'policy.set', (trx) => patchPolicyAudited(trx, id, valid));
    } catch (thrown) {
      if (!(thrown instanceof GatewayError) || thrown.code === 'not_found') throw thrown;
      return showOrganization(
        ctx,
        posted.session,
        id,
        `${TEXT[kit.localeOf(ctx)].policyRefused} ${thrown.message}`,
      );
    }
    kit.seeOther(ctx, `/console/organizations/${id}?done=policy`);
  });
}

function organizationParam(ctx: Context): string {
  const id = ctx.params.id ?? '';
  if (!UUID.test(id)) throw organizationNotFound(id);
  return id.toLowerCase();
}

function capsSummary(locale: ConsoleLocale, policy: Pick<PolicyView, (typeof CAPS)[number]>): string {
  const text = TEXT[locale];
  const shown = CAPS.filter((cap) => policy[cap] !== null).map(
    (cap) => `${text[cap]} ${escapeHtml(policy[cap] ?? '')}`,
  );
  return shown.length > 0 ? shown.join(' · ') : text.noCaps;
}

function walletSection(locale: ConsoleLocale, session: Session, wallet: WalletView): string {
  const text = TEXT[locale];
  const ledger = wallet.ledger
    .map(
      (entry) =>
        `<tr><td>${when(locale, entry.occurred_at)}</td><td>${entry.kind === 'credit' ? text.creditKind : text.chargeKind}</td><td>${entry.amount_credits}</td><td>${escapeHtml(entry.capability_id ?? '')}</td></tr>`,
    )
    .join('');
  return `<section aria-labelledby="wallet"><h2 id="wallet">${text.wallet}</h2>
<dl><dt>${text.balance}</dt><dd id="balance">${wallet.balance_credits} ${text.credits}</dd>
<dt>${text.spentHour}</dt><dd>${wallet.spent.hour_credits} ${text.credits}</dd>
<dt>${text.spentToday}</dt><dd>${wallet.spent.today_credits} ${text.credits}</dd>
<dt>${text.spentMonth}</dt><dd>${wallet.spent.month_credits} ${text.credits}</dd></dl>
<form method="post" action="/console/organizations/${wallet.organization_id}/credit">${csrfField(session)}
<input type="hidden" name="idempotency_key" value="${randomUUID()}">
${field('amount', text.creditAmount, undefined, `required inputmode="decimal" pattern="${CREDITS_PATTERN}"`)}
${field('memo', text.memo, undefined, 'maxlength="200"')}
<button type="submit">${text.credit}</button></form>
${ledger ? `<table><caption>${text.ledger}</caption><thead><tr><th scope="col">${text.when}</th><th scope="col">${text.kind}</th><th scope="col">${text.amount}</th><th scope="col">${text.capability}</th></tr></thead><tbody>${ledger}</tbody></table>` : ''}</section>`;
}

function policySection(
  locale: ConsoleLocale,
  session: Session,
  policy: Pick<PolicyView, 'organization_id' | 'kill_switch_enabled' | (typeof CAPS)[number]>,
): string {
  const text = TEXT[locale];
  return `<section aria-labelledby="policy"><h2 id="policy">${text.policy}</h2><p>${text.policyLead}</p>
<form method="post" action="/console/organizations/${policy.organization_id}/policy">${csrfField(session)}
${CAPS.map((cap) => field(cap, text[cap], policy[cap] ?? undefined, `inputmode="decimal" pattern="${CREDITS_PATTERN}"`)).join('\n')}
<div class="check"><input type="checkbox" id="kill_switch" name="kill_switch"${policy.kill_switch_enabled ? ' checked' : ''}><label for="kill_switch">${text.killSwitchLabel}</label></div>
<button type="submit">${text.savePolicy}</button></form></section>`;
}
