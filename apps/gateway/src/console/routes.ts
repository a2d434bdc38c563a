import { errorCodes } from '@agw/contracts';
import type { Router } from '@koa/router';
import { recordOperatorAction } from '../admin/audit.js';
import { authenticateOperator, type OperatorPrincipal } from '../admin/operator-auth.js';
import { recordAuditEvent } from '../audit.js';
import { knexTransaction } from '../db/knex-transaction.js';
import { GatewayError } from '../http/gateway-error.js';
import type { GatewayState } from '../http/state.js';
import { registerApprovalsPage } from './approvals-page.js';
import { CONSOLE_CSS } from './assets.js';
import { registerAuditPage } from './audit-page.js';
import { registerInstallationsPage } from './installations-page.js';
import { type ConsoleOptions, type Context, createConsoleKit } from './kit.js';
import { registerMailPage } from './mail-page.js';
import { TEXT } from './messages.js';
import { registerOrganizationsPage } from './organizations-page.js';
import { renderSignIn } from './pages.js';
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

export type { ConsoleOptions } from './kit.js';

/** Sign-in attempts per client address and window: enough for typos, far too few to guess a key. */
export const SIGN_IN_LIMIT = { limit: 10, windowSeconds: 15 * 60 };

/**
 * The operator console at /console: server-rendered pages, signed in with an operator key (issue 29).
 * Sessions live in `console_sessions` (src/console/session.ts); every form carries a CSRF token bound
 * to the session; every action is audited with the operator key that signed in. No CORS: nothing
 * here answers a preflight or sets Access-Control-* headers.
 */
export function registerConsoleRoutes(router: Router<GatewayState>, options: ConsoleOptions): void {
  const { knex, box } = options;
  const kit = createConsoleKit(options);
  const httpsBase = options.publicBaseUrl.startsWith('https:');
  const setCookie = (ctx: Context, name: string, value: string, maxAgeSeconds?: number) => {
    const secure = httpsBase || ctx.secure ? '; Secure' : '';
    const age = maxAgeSeconds === undefined ? '' : `; Max-Age=${maxAgeSeconds}`;
    ctx.append('Set-Cookie', `${name}=${value}; Path=/console; HttpOnly; SameSite=Strict${secure}${age}`);
  };
  const { html, localeOf, readForm, forgery } = kit;

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
      await recordOperatorAction(trx, {
        auditId: ctx.state.auditId,
        requestId: ctx.state.requestId,
        operator,
        action: 'console.sign_in',
        httpStatus: 303,
        details: { via: 'console' },
      });
      return opened;
    });
    ctx.state.actor = operator.actor;
    setCookie(ctx, SIGN_IN_COOKIE, '', 0);
    setCookie(ctx, SESSION_COOKIE, token);
    ctx.status = 303;
    ctx.redirect('/console/approvals');
  });

  router.post('/console/sign-out', async (ctx) => {
    const posted = await kit.signedPost(ctx);
    if (!posted) return;
    await kit.audited(ctx, posted.session, 'console.sign_out', async (trx) => {
      await closeSession(trx, posted.session.token);
      return { result: undefined, details: {} };
    });
    setCookie(ctx, SESSION_COOKIE, '', 0);
    kit.seeOther(ctx, '/console');
  });

  registerApprovalsPage(router, kit);
  registerInstallationsPage(router, kit);
  registerOrganizationsPage(router, kit);
  registerAuditPage(router, kit);
  registerMailPage(router, kit);
}
