import { CapabilityError, defineCapabilityHandler } from '../define.js';
import { runStatement } from '../sql.js';
import { calendarContract } from './common.js';
import { findLink, type LinkRow, linkStatus, linkView, newSecret, publicPath, publicUrl } from './links.js';
import { linkIssueSecret } from './sql.js';

/**
 * `calendar.booking_link.issue_secret`: a new secret for a secret link (256 random bits; only its
 * SHA-256 is stored), shown once in `secret_once` and inside `url_path` and `url`. Issuing again voids the
 * previous secret at once. A public link needs none: `secret_once` is null and `url_path` its slug path.
 */
export const calendarBookingLinkIssueSecretHandler = defineCapabilityHandler<{ link_id: string }, unknown>({
  contract: calendarContract('calendar.booking_link.issue_secret'),
  async handle(input, ctx) {
    const link = await findLink(ctx.sql, ctx.organizationId, input.link_id);
    if (link.access_mode === 'public') {
      return {
        link: linkView(link, ctx.now),
        secret_once: null,
        url_path: publicPath(link.slug),
        ...publicUrl(ctx.publicBaseUrl, publicPath(link.slug)),
        public_link: true,
      };
    }
    const status = linkStatus(link, ctx.now);
    if (status !== 'active') {
      throw new CapabilityError('conflict', `The link is ${status}; a secret for it would open nothing.`);
    }
    const { secret, sha256 } = newSecret();
    const { rows } = await runStatement<LinkRow>(ctx.sql, linkIssueSecret, [
      ctx.organizationId,
      link.id,
      sha256,
      ctx.now,
    ]);
    return {
      link: linkView(rows[0] as LinkRow, ctx.now),
      secret_once: secret,
      url_path: publicPath(link.slug, secret),
      ...publicUrl(ctx.publicBaseUrl, publicPath(link.slug, secret)),
      public_link: false,
    };
  },
});
