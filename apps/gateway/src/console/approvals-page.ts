import type { Router } from '@koa/router';
import type { Knex } from 'knex';
import { type ApprovalFacts, type PreflightVerdict, preflightVerdict } from '../admin/approval-details.js';
import { approvalAuditDetails, decideApproval, UUID_PATTERN } from '../admin/approvals.js';
import { maskParams, revealParam } from '../admin/mask-params.js';
import { GatewayError } from '../http/gateway-error.js';
import type { GatewayState } from '../http/state.js';
import { capabilityKey } from '../meta-tools/capability-key.js';
import { isQueueCursor, type QueuedApproval, readQueue, readWaitingApproval } from './approval-queue.js';
import type { ConsoleKit, Context } from './kit.js';
import { type ConsoleLocale, TEXT } from './messages.js';
import { csrfField, escapeHtml, field, layout, notice, pager, type SignedIn, select, when } from './pages.js';

const UUID = new RegExp(UUID_PATTERN);
const CAPABILITY_ID = /^[a-z0-9_.]{1,100}$/;

/** The approvals page: the queue with filters, each call's verdict, decide, and reveal a masked value. */
export function registerApprovalsPage(router: Router<GatewayState>, kit: ConsoleKit): void {
  const { knex, box, facts } = kit.options;
  const capabilities = [...new Set(kit.options.catalog.map((contract) => contract.id))].sort();

  router.get('/console/approvals', async (ctx) => {
    const session = await kit.signedIn(ctx);
    if (!session) return;
    const filter = queueFilter(ctx);
    const page = await readQueue(knex, box, filter);
    const verdicts = await preflightVerdicts(knex, facts, page.approvals);
    const done = ctx.query.done;
    const locale = kit.localeOf(ctx);
    const text = TEXT[locale];
    const query = new URLSearchParams();
    if (filter.organization) query.set('organization', filter.organization);
    if (filter.capability) query.set('capability', filter.capability);
    const cards = page.approvals
      .map((approval, index) =>
        approvalCard(locale, session, approval, facts.contracts, verdicts[index] ?? { verdict: 'unknown' }),
      )
      .join('');
    const filters = `<form method="get" action="/console/approvals" class="filters" aria-label="${text.filters}">
${field('organization', text.organizationId, filter.organization, `pattern="${UUID_PATTERN.slice(1, -1)}" inputmode="text" autocomplete="off"`)}
${select('capability', text.capability, filter.capability, [['', text.any], ...capabilities.map((id) => [id, id] as const)])}
<button type="submit">${text.filter}</button></form>`;
    kit.html(
      ctx,
      200,
      layout(
        locale,
        text.approvals,
        `<h1>${text.approvals}</h1>${
          done === 'conflict'
            ? notice(text.alreadyDecided, true)
            : notice(done === 'approved' ? text.approved : done === 'denied' ? text.denied : undefined)
        }<p>${text.approvalsLead}</p>${filters}
${cards || `<p>${text.none}</p>`}${pager(locale, '/console/approvals', query, page.next, filter.after !== undefined)}`,
        session,
        'approvals',
      ),
    );
  });

  router.post('/console/approvals/:id/decide', async (ctx) => {
    const posted = await kit.signedPost(ctx);
    if (!posted) return;
    const id = approvalParam(ctx);
    const verb = posted.form.get('decision');
    if (verb !== 'approve' && verb !== 'deny') {
      throw new GatewayError('bad_request', { message: 'decision must be approve or deny.' });
    }
    const note = posted.form.get('note')?.trim().slice(0, 500) || undefined;
    const decision = verb === 'approve' ? 'approved' : 'denied';
    let done: string = decision;
    try {
      // The admin API's decision (src/admin/approvals.ts): the agent's next invoke sees it the same way.
      await kit.audited(ctx, posted.session, `approval.${verb}`, async (trx) => {
        const result = await decideApproval(trx, id, decision);
        return { result, details: approvalAuditDetails(result, decision, note) };
      });
    } catch (thrown) {
      if (!(thrown instanceof GatewayError && thrown.code === 'conflict')) throw thrown;
      done = 'conflict';
    }
    kit.seeOther(ctx, `/console/approvals?done=${done}`);
  });

  // A masked value in full, once: a POST (never a link a browser or proxy could replay or prefetch),
  // audited with the operator's key and the field's path, never the value.
  router.post('/console/approvals/:id/reveal', async (ctx) => {
    const posted = await kit.signedPost(ctx);
    if (!posted) return;
    const id = approvalParam(ctx);
    const label = posted.form.get('field') ?? '';
    const approval = await readWaitingApproval(knex, box, id);
    const value = approval === undefined ? undefined : revealParam(approval.params, label);
    if (approval === undefined || value === undefined) {
      throw new GatewayError('not_found', {
        message: `Waiting approval ${id} has no masked field ${JSON.stringify(label.slice(0, 100))} to reveal.`,
      });
    }
    await kit.audited(
      ctx,
      posted.session,
      'approval.reveal',
      async () => ({
        result: undefined,
        details: {
          approval_id: id,
          organization_id: approval.organization_id,
          installation_id: approval.installation_id,
          capability_id: approval.capability_id,
          field: label,
        },
      }),
      200,
    );
    const locale = kit.localeOf(ctx);
    const text = TEXT[locale];
    kit.html(
      ctx,
      200,
      layout(
        locale,
        text.revealTitle,
        `<h1>${text.revealTitle}</h1>${notice(text.revealNotice)}
<table><caption>${escapeHtml(approval.capability_id)} · ${escapeHtml(approval.organization_name)}</caption>
<tbody><tr><th scope="row">${escapeHtml(label)}</th><td class="revealed">${escapeHtml(value)}</td></tr></tbody></table>
<p><a href="/console/approvals">${text.backToApprovals}</a></p>`,
        posted.session,
        'approvals',
      ),
    );
  });
}

function approvalParam(ctx: Context): string {
  const id = ctx.params.id ?? '';
  if (!UUID.test(id)) throw new GatewayError('not_found', { message: `No approval with id ${id}.` });
  return id;
}

function queueFilter(ctx: Context) {
  const text = (name: string) => {
    const value = ctx.query[name];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const after = text('after');
  if (after !== undefined && !isQueueCursor(after)) {
    throw new GatewayError('bad_request', { message: 'The page cursor is not one the console handed out.' });
  }
  const organization = text('organization')?.toLowerCase();
  if (organization !== undefined && !UUID.test(organization)) {
    throw new GatewayError('bad_request', { message: 'organization must be an organization id (a UUID).' });
  }
  const capability = text('capability');
  if (capability !== undefined && !CAPABILITY_ID.test(capability)) {
    throw new GatewayError('bad_request', { message: 'capability must be a capability id.' });
  }
  return { after, organization, capability };
}

function paramsTable(locale: ConsoleLocale, signedIn: SignedIn, approval: QueuedApproval): string {
  const text = TEXT[locale];
  if (approval.params === undefined) {
    return `<p>${text.paramsUnknown} <code>${escapeHtml(approval.params_hash)}</code></p>`;
  }
  const reveal = (label: string) =>
    `<form method="post" action="/console/approvals/${approval.approval_id}/reveal" class="inline">${csrfField(signedIn)}<input type="hidden" name="field" value="${escapeHtml(label)}"><button type="submit" class="small" aria-label="${escapeHtml(`${text.reveal}: ${label}`)}">${text.reveal}</button></form>`;
  const rows = maskParams(approval.params)
    .map(
      (row) =>
        `<tr><th scope="row">${escapeHtml(row.label)}</th>${
          row.masked
            ? `<td class="masked">${escapeHtml(row.value)} <span class="tag">(${text.masked})</span>${row.revealable ? reveal(row.label) : ''}</td>`
            : `<td>${escapeHtml(row.value)}</td>`
        }</tr>`,
    )
    .join('');
  return `<table><caption>${text.parameters}</caption><thead><tr><th scope="col">${text.field}</th><th scope="col">${text.value}</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function verdictHtml(locale: ConsoleLocale, verdict: PreflightVerdict): string {
  const text = TEXT[locale];
  if (verdict.verdict === 'violations') {
    return `<dd class="verdict-refused">${text.verdictRefused}<ul>${verdict.violations
      .map((violation) => `${violation.schema_pointer}: ${violation.message}`)
      .map((message) => `<li>${escapeHtml(message)}</li>`)
      .join('')}</ul></dd>`;
  }
  const words = {
    passes: text.verdictPasses,
    none: text.verdictNone,
    unknown: text.verdictUnknown,
    failed: text.verdictFailed,
  };
  return `<dd class="verdict-${verdict.verdict}">${words[verdict.verdict]}</dd>`;
}

// Each preflight runs in its own read-only transaction on a pooled connection: a few at a time, so a
// page of 25 neither waits for them one by one nor takes the pool from the requests.
const PREFLIGHTS_AT_ONCE = 4;

async function preflightVerdicts(
  knex: Knex,
  facts: ApprovalFacts,
  approvals: readonly QueuedApproval[],
): Promise<PreflightVerdict[]> {
  const verdicts: PreflightVerdict[] = new Array(approvals.length);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < approvals.length; index = next++) {
      const approval = approvals[index] as QueuedApproval;
      const handler = facts.handlers.get(capabilityKey(approval.capability_id, approval.capability_version));
      verdicts[index] = await preflightVerdict(knex, handler, approval, approval.params);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PREFLIGHTS_AT_ONCE, approvals.length) }, worker));
  return verdicts;
}

function approvalCard(
  locale: ConsoleLocale,
  signedIn: SignedIn,
  approval: QueuedApproval,
  contracts: ApprovalFacts['contracts'],
  verdict: PreflightVerdict,
): string {
  const text = TEXT[locale];
  const known = contracts.get(capabilityKey(approval.capability_id, approval.capability_version));
  const id = approval.approval_id;
  const heading = `approval-${id}`;
  const risk = known?.risk_level ?? '?';
  const org = approval.organization_id;
  return `<article aria-labelledby="${heading}"><h2 id="${heading}">${escapeHtml(approval.capability_id)} <span class="tag">${escapeHtml(approval.capability_version)}</span></h2>
<dl><dt>${text.organization}</dt><dd><a href="/console/organizations/${org}">${escapeHtml(approval.organization_name)}</a> <a class="tag" href="/console/approvals?organization=${org}">${text.onlyThisOrganization}</a></dd>
<dt>${text.installation}</dt><dd>${escapeHtml(approval.app_name)} <span class="tag">${escapeHtml(approval.app_slug)}</span></dd>
<dt>${text.risk}</dt><dd class="risk-${escapeHtml(risk)}">${escapeHtml(risk)}</dd>
<dt>${text.cost}</dt><dd>${escapeHtml(known?.cost_credits ?? '?')} ${text.credits}</dd>
<dt>${text.preflight}</dt>${verdictHtml(locale, verdict)}
<dt>${text.reason}</dt><dd>${escapeHtml(approval.reason)}</dd>
<dt>${text.waitingSince}</dt><dd>${when(locale, approval.created_at)}</dd>
<dt>${text.expires}</dt><dd>${when(locale, approval.expires_at)}</dd></dl>
${paramsTable(locale, signedIn, approval)}
<form method="post" action="/console/approvals/${id}/decide">
${csrfField(signedIn)}
<label for="note-${id}">${text.note}</label><textarea id="note-${id}" name="note" rows="2" maxlength="500"></textarea>
<button type="submit" name="decision" value="approve">${text.approve}</button><button type="submit" name="decision" value="deny" class="deny">${text.deny}</button>
</form></article>`;
}
