import type { RateLimiter } from '@agw/guard';
import type { RouterContext } from '@koa/router';
import type { Knex } from 'knex';
import type { ApprovalFacts } from '../admin/approval-details.js';
import { runOperatorAction } from '../admin/audit.js';
import type { OperatorPrincipal } from '../admin/operator-auth.js';
import { readBodyText } from '../http/body.js';
import { GatewayError } from '../http/gateway-error.js';
import type { GatewayState } from '../http/state.js';
import type { CatalogContract } from '../meta-tools/catalog.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { type ConsoleLocale, consoleLocale } from './messages.js';
import { csrfMatches, csrfTokenOf, resumeSession, SESSION_COOKIE } from './session.js';

/** What the console needs from the app. */
export interface ConsoleOptions {
  readonly knex: Knex;
  /** The server secret's box: CSRF tokens, and the approvals' encrypted params. */
  readonly box: SecretBox;
  /** The capabilities the filters list. */
  readonly catalog: readonly CatalogContract[];
  /** Risk, cost and preflight of the capability versions the approvals name (shared with the admin API). */
  readonly facts: ApprovalFacts;
  /** An https PUBLIC_BASE_URL marks the cookies Secure (TLS may end at a proxy in front). */
  readonly publicBaseUrl: string;
  /** Counts sign-in attempts per client address. */
  readonly rateLimiter: RateLimiter;
}

export type Context = RouterContext<GatewayState>;

/** A signed-in request: its operator, session token and the CSRF token of its forms. */
export interface Session {
  readonly operator: OperatorPrincipal;
  readonly token: string;
  readonly csrf: string;
}

/** The page helpers every console route shares. */
export interface ConsoleKit {
  readonly options: ConsoleOptions;
  html(ctx: Context, status: number, body: string): void;
  localeOf(ctx: Context): ConsoleLocale;
  /** The session of a page request; a missing or ended one is redirected to sign-in (undefined). */
  signedIn(ctx: Context): Promise<Session | undefined>;
  /** A signed-in form post with its fields, its CSRF token checked (a forgery is 403). */
  signedPost(ctx: Context): Promise<{ session: Session; form: URLSearchParams } | undefined>;
  /** A form's fields; only urlencoded forms (what the console's own pages send). */
  readForm(ctx: Context): Promise<URLSearchParams>;
  forgery(): GatewayError;
  /** Runs `work` and writes its audit row (with the session's operator) in one transaction. */
  audited<T>(
    ctx: Context,
    session: Session,
    action: string,
    work: (trx: Knex.Transaction) => Promise<{ result: T; details: Record<string, unknown> }>,
    httpStatus?: number,
  ): Promise<T>;
  /** Redirects after a post (303, so a reload does not post again). */
  seeOther(ctx: Context, location: string): void;
}

const FORM_LIMIT_BYTES = 16 * 1024;
// No script runs on the console's pages (forms and links only); styles come from /console/assets.
const CONSOLE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export function createConsoleKit(options: ConsoleOptions): ConsoleKit {
  const { knex, box } = options;
  const forgery = () =>
    new GatewayError('forbidden', {
      message: 'The form carries no valid CSRF token for this session.',
      hint: 'Reload the console page and submit its form again.',
    });
  const readForm = async (ctx: Context): Promise<URLSearchParams> => {
    if (!/^application\/x-www-form-urlencoded\b/i.test(ctx.get('content-type'))) {
      throw new GatewayError('unsupported_media_type', {
        message: 'The console accepts its own forms only (application/x-www-form-urlencoded).',
      });
    }
    return new URLSearchParams(await readBodyText(ctx, FORM_LIMIT_BYTES));
  };
  const signedIn = async (ctx: Context): Promise<Session | undefined> => {
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
  return {
    options,
    html(ctx, status, body) {
      ctx.status = status;
      ctx.set('Content-Security-Policy', CONSOLE_CSP);
      // Pages show organizations' data (and a revealed value): never kept by a cache.
      ctx.set('Cache-Control', 'no-store');
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = body;
    },
    localeOf: (ctx) => consoleLocale(ctx.get('accept-language') || undefined),
    signedIn,
    async signedPost(ctx) {
      const session = await signedIn(ctx);
      if (!session) return undefined;
      const form = await readForm(ctx);
      if (!csrfMatches(box, session.token, form.get('csrf') ?? undefined)) throw forgery();
      return { session, form };
    },
    readForm,
    forgery,
    async audited(ctx, session, action, work, httpStatus = 303) {
      const { auditId, requestId } = ctx.state;
      const { operator } = session;
      const done = await runOperatorAction(
        knex,
        { auditId, requestId, operator, action, httpStatus, via: 'console' },
        work,
      );
      return done.result;
    },
    seeOther(ctx, location) {
      ctx.status = 303;
      ctx.redirect(location);
    },
  };
}
