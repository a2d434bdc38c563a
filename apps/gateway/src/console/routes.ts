import { errorCodes } from '@agw/contracts';
import type { RateLimiter } from '@agw/guard';
import type { Router, RouterContext } from '@koa/router';
import type { Knex } from 'knex';
import { approvalAuditDetails, decideApproval, UUID_PATTERN } from '../admin/approvals.js';
import { recordOperatorAction } from '../admin/audit.js';
import { authenticateOperator, type OperatorPrincipal } from '../admin/operator-auth.js';
import { recordAuditEvent } from '../audit.js';
import { knexTransaction } from '../db/knex-transaction.js';
import { readBodyText } from '../http/body.js';
import { GatewayError } from '../http/gateway-error.js';
import type { GatewayState } from '../http/state.js';
import type { CatalogContract } from '../meta-tools/catalog.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { isQueueCursor, readQueue } from './approval-queue.js';
import { CONSOLE_CSS } from './assets.js';
import { type ConsoleLocale, consoleLocale, TEXT } from './messages.js';
import { renderApprovals, renderSignIn } from './pages.js';
import {
  closeSession,
  csrfMatches,
  csrfTokenOf,
  IDLE_SECONDS,
  newCookieToken,
  openSession,
  resumeSession,
  SESSION_COOKIE,
  SIGN_IN_COOKIE,
} from './session.js';

/** What the console needs from the app. */
export interface ConsoleOptions {
  readonly knex: Knex;
  /** The server secret's box: CSRF tokens, and the approvals' encrypted params. */
  readonly box: SecretBox;
  /** Risk and cost of the capabilities the approvals name. */
  readonly catalog: readonly CatalogContract[];
  /** An https PUBLIC_BASE_URL marks the cookies Secure (TLS may end at a proxy in front). */
  readonly publicBaseUrl: string;
  /** Counts sign-in attempts per client address. */
  readonly rateLimiter: RateLimiter;
}

type Context = RouterContext<GatewayState>;

/** Sign-in attempts per client address and window: enough for typos, far too few to guess a key. */
export const SIGN_IN_LIMIT = { limit: 10, windowSeconds: 15 * 60 };
const FORM_LIMIT_BYTES = 16 * 1024;
const UUID = new RegExp(UUID_PATTERN);
// No script runs on the console's pages (forms and links only); styles come from /console/assets.
const CONSOLE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/**
 * The operator console at /console: server-rendered pages, signed in with an operator key (issue 29).
 * Sessions live in `console_sessions` (src/console/session.ts); every form carries a CSRF token bound
 * to the session; every action is audited with the operator key that signed in. No CORS: nothing
 * here answers a preflight or sets Access-Control-* headers.
 */
export function registerConsoleRoutes(router: Router<GatewayState>, options: ConsoleOptions): void {
  const { knex, box } = options;
  const facts = new Map(
    options.catalog.map((contract) => [
      `${contract.id}@${contract.version}`,
      { risk: contract.risk_level, cost: contract.cost_credits },
    ]),
  );
  const httpsBase = options.publicBaseUrl.startsWith('https:');

  const setCookie = (ctx: Context, name: string, value: string, maxAgeSeconds?: number) => {
    const secure = httpsBase || ctx.secure ? '; Secure' : '';
    const age = maxAgeSeconds === undefined ? '' : `; Max-Age=${maxAgeSeconds}`;
    ctx.append('Set-Cookie', `${name}=${value}; Path=/console; HttpOnly; SameSite=Strict${secure}${age}`);
  };
  const html = (ctx: Context, status: number, body: string) => {
    ctx.status = status;
    ctx.set('Content-Security-Policy', CONSOLE_CSP);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = body;
  };
  const localeOf = (ctx: Context): ConsoleLocale => consoleLocale(ctx.get('accept-language') || undefined);
  const audit =
    (ctx: Context, operator: OperatorPrincipal, action: string, details: Record<string, unknown>) =>
    (trx: Knex.Transaction) =>
      recordOperatorAction(trx, {
        auditId: ctx.state.auditId,
        requestId: ctx.state.requestId,
        operator,
        action,
        httpStatus: 303,
        details: { ...details, via: 'console' },
      });

  /** A form post's fields; only urlencoded forms (what the console's own pages send). */
  const readForm = async (ctx: Context): Promise<URLSearchParams> => {
    if (!/^application\/x-www-form-urlencoded\b/i.test(ctx.get('content-type'))) {
      throw new GatewayError('unsupported_media_type', {
        message: 'The console accepts its own forms only (application/x-www-form-urlencoded).',
      });
    }
    return new URLSearchParams(await readBodyText(ctx, FORM_LIMIT_BYTES));
  };
  const forgery = () =>
    new GatewayError('forbidden', {
      message: 'The form carries no valid CSRF token for this session.',
      hint: 'Reload the console page and submit its form again.',
    });

  /** The signed-in operator and the form's CSRF token; a missing or ended session goes to sign-in. */
  const signedIn = async (ctx: Context) => {
    const token = ctx.cookies.get(SESSION_COOKIE);
    const operator = await resumeSession(knex, token);
    if (operator === undefined || token === undefined) {
      ctx.status = 303;
      ctx.redirect(token === undefined ? '/console' : '/console?expired=1');
      return undefined;
    }
    ctx.state.actor = operator.actor;
    return { operator, token, csrf: csrfTokenOf(box, token) };
  };

  const showSignIn = (ctx: Context, status: number, problem?: string) => {
    const token = newCookieToken();
    setCookie(ctx, SIGN_IN_COOKIE, token, IDLE_SECONDS);
    html(ctx, status, renderSignIn(localeOf(ctx), csrfTokenOf(box, token), problem));
  };

  router.get('/console/assets/console.css', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.type = 'text/css; charset=utf-8';
    ctx.body = CONSOLE_CSS;
  });

  router.get('/console', async (ctx) => {
    if ((await resumeSession(knex, ctx.cookies.get(SESSION_COOKIE))) !== undefined) {
      ctx.status = 303;
      return ctx.redirect('/console/approvals');
    }
    showSignIn(ctx, 200, ctx.query.expired === '1' ? TEXT[localeOf(ctx)].expired : undefined);
  });

  router.post('/console/sign-in', async (ctx) => {
    const form = await readForm(ctx);
    if (!csrfMatches(box, ctx.cookies.get(SIGN_IN_COOKIE), form.get('csrf') ?? undefined)) throw forgery();
    const text = TEXT[localeOf(ctx)];
    const attempt = await options.rateLimiter.consume({
      key: `console.sign-in:${ctx.ip}`,
      ...SIGN_IN_LIMIT,
      cost: 1,
    });
    if (!attempt.allowed) {
      ctx.set('Retry-After', String(attempt.retryAfterSeconds));
      return showSignIn(ctx, 429, text.tooMany);
    }
    let operator: OperatorPrincipal;
    try {
      operator = await authenticateOperator(knex, `Bearer ${form.get('operator_key') ?? ''}`);
    } catch (thrown) {
      if (!(thrown instanceof GatewayError)) throw thrown;
      const { status } = errorCodes[thrown.code];
      // The key itself is never recorded: the code says enough (wrong, revoked, not an operator's).
      await recordAuditEvent(knex, ctx.state.log, {
        auditId: ctx.state.auditId,
        requestId: ctx.state.requestId,
        actor: 'anonymous',
        action: 'console.sign_in',
        outcome: 'failed',
        httpStatus: status,
        details: { code: thrown.code, via: 'console' },
      });
      return showSignIn(ctx, status, text.badKey);
    }
    const token = await knexTransaction(knex, async (trx) => {
      const opened = await openSession(trx, operator);
      await audit(ctx, operator, 'console.sign_in', {})(trx);
      return opened;
    });
    ctx.state.actor = operator.actor;
    setCookie(ctx, SIGN_IN_COOKIE, '', 0);
    setCookie(ctx, SESSION_COOKIE, token);
    ctx.status = 303;
    ctx.redirect('/console/approvals');
  });

  router.post('/console/sign-out', async (ctx) => {
    const session = await signedIn(ctx);
    if (!session) return;
    if (!csrfMatches(box, session.token, (await readForm(ctx)).get('csrf') ?? undefined)) throw forgery();
    await knexTransaction(knex, async (trx) => {
      await closeSession(trx, session.token);
      await audit(ctx, session.operator, 'console.sign_out', {})(trx);
    });
    setCookie(ctx, SESSION_COOKIE, '', 0);
    ctx.status = 303;
    ctx.redirect('/console');
  });

  router.get('/console/approvals', async (ctx) => {
    const session = await signedIn(ctx);
    if (!session) return;
    const after = typeof ctx.query.after === 'string' ? ctx.query.after : undefined;
    if (after !== undefined && !isQueueCursor(after)) {
      throw new GatewayError('bad_request', {
        message: 'The page cursor is not one the console handed out.',
      });
    }
    const done = ctx.query.done;
    const page = await readQueue(knex, box, after);
    html(
      ctx,
      200,
      renderApprovals({
        locale: localeOf(ctx),
        signedIn: session,
        approvals: page.approvals,
        facts: (id, version) => facts.get(`${id}@${version}`),
        next: page.next,
        paged: after !== undefined,
        notice: done === 'approved' || done === 'denied' || done === 'conflict' ? done : undefined,
      }),
    );
  });

  router.post('/console/approvals/:id/decide', async (ctx) => {
    const session = await signedIn(ctx);
    if (!session) return;
    const form = await readForm(ctx);
    if (!csrfMatches(box, session.token, form.get('csrf') ?? undefined)) throw forgery();
    const id = ctx.params.id ?? '';
    if (!UUID.test(id)) throw new GatewayError('not_found', { message: `No approval with id ${id}.` });
    const verb = form.get('decision');
    if (verb !== 'approve' && verb !== 'deny') {
      throw new GatewayError('bad_request', { message: 'decision must be approve or deny.' });
    }
    const note = form.get('note')?.trim().slice(0, 500) || undefined;
    const decision = verb === 'approve' ? 'approved' : 'denied';
    let done: string = decision;
    try {
      // The admin API's decision (src/admin/approvals.ts): the agent's next invoke sees it the same way.
      await knexTransaction(knex, async (trx) => {
        const result = await decideApproval(trx, id, decision);
        await audit(
          ctx,
          session.operator,
          `approval.${verb}`,
          approvalAuditDetails(result, decision, note),
        )(trx);
      });
    } catch (thrown) {
      if (!(thrown instanceof GatewayError && thrown.code === 'conflict')) throw thrown;
      done = 'conflict';
    }
    ctx.status = 303;
    ctx.redirect(`/console/approvals?done=${done}`);
  });
}
