import { type ErrorCode, UUID_PATTERN } from '@agw/contracts';
import type { Router } from '@koa/router';
import type { Knex } from 'knex';
import { sqlPoolOf } from '../db/pool.js';
import { GatewayError } from '../http/gateway-error.js';
import type { GatewayState } from '../http/state.js';
import { findJob } from '../jobs/job-store.js';
import { acceptedResponse } from '../jobs/poll.js';
import { authenticateKey } from '../keys/authenticate.js';

const uuid = new RegExp(UUID_PATTERN);

/**
 * GET /mcp/jobs/:id with the installation key: the poll target of an `accepted` invoke. A finished job
 * answers what invoke would have answered (the stored InvokeResponse, or the stored error envelope with
 * its status); an unfinished one answers `accepted` with a fresh `poll`, so a client polls uniformly.
 * A job of another organization answers exactly like an unknown id: 404 `not_found`.
 */
export function registerJobRoutes(router: Router<GatewayState>, options: { readonly knex: Knex }): void {
  const { knex } = options;
  const sql = sqlPoolOf(knex);
  router.get('/mcp/jobs/:id', async (ctx) => {
    const { row } = await authenticateKey(knex, ctx.headers.authorization, { kind: 'installation' });
    const id = ctx.params.id ?? '';
    const job =
      uuid.test(id) && row.organization_id !== null ? await findJob(sql, row.organization_id, id) : undefined;
    if (job === undefined) {
      throw new GatewayError('not_found', {
        message: 'No job with this id.',
        hint: 'Poll the poll.url of an accepted invoke with the installation key that can see it.',
      });
    }
    if (job.status === 'succeeded' || job.status === 'failed') {
      ctx.status = job.response_status ?? 200;
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = JSON.stringify(job.response);
      if (job.status === 'failed') {
        ctx.state.errorCode = (job.response as { error: { code: ErrorCode } }).error.code;
      }
      return;
    }
    ctx.body = acceptedResponse({
      id: job.id,
      capability_id: job.capability_id,
      capability_version: job.capability_version,
      accepted_audit_id: job.accepted_audit_id,
      status: job.status,
      ageMs: Date.now() - new Date(job.created_at).getTime(),
    });
  });
}
