import type { AdminClient, RunApproval } from '@agw/client/admin';
import { ConnectionError, GatewayError } from '@agw/client/admin';
import { approvalStatusText } from '../approval-status.js';
import type { CommandContext } from '../context.js';
import { EXIT, ExitError } from '../io.js';
import { exitCodeFor, operatorClient, withGateway } from '../operator-context.js';
import { colorsFor, formatTime } from '../output.js';
import { listenForStop } from '../stop-signal.js';
import type { ApprovalsListFlags } from './approvals.js';

/** Flags of `agw approvals list --watch`. */
export interface ApprovalsWatchFlags extends ApprovalsListFlags {
  readonly watch?: boolean | undefined;
  /** Seconds between two looks while nothing fails (default 5). */
  readonly interval?: string | undefined;
}

const DEFAULT_INTERVAL_SECONDS = 5;
/** After failures the wait doubles up to this: a gateway restart is not hammered. */
const MAX_BACKOFF_SECONDS = 60;
// The admin API's largest page: the watch sees the oldest 1000 waiting approvals.
const WATCH_LIMIT = 1000;

/**
 * `agw approvals list --watch`: polls the admin API's pending list and prints each approval once, the
 * ones already waiting first, then each new one as it arrives (a line each; with `--json` one JSON
 * object per line). A failed look is said once on stderr and retried with doubling waits up to 60 s;
 * a refused operator key ends it (exit 3). SIGINT ends it with exit 0.
 */
export async function approvalsWatch(flags: ApprovalsWatchFlags, context: CommandContext): Promise<void> {
  const interval = Number(flags.interval ?? DEFAULT_INTERVAL_SECONDS);
  if (!Number.isFinite(interval) || interval < 0.1 || interval > 3600) {
    throw new ExitError(
      EXIT.usage,
      `--interval must be a number of seconds from 0.1 to 3600; got '${flags.interval}'`,
    );
  }
  if (flags.status !== undefined && flags.status !== 'pending') {
    throw new ExitError(EXIT.usage, '--watch waits for pending approvals; leave out --status');
  }
  const client = await operatorClient(flags, context);
  // SIGINT (or SIGTERM) ends the watch with exit code 0.
  const signal = listenForStop();
  const seen = new Set<string>();
  let wait = interval;
  let failing = false;
  try {
    for (;;) {
      try {
        const pending = await look(client, flags.org);
        if (failing) context.io.stderr('agw: the gateway answers again\n');
        failing = false;
        wait = interval;
        for (const approval of pending) {
          if (seen.has(approval.approval_id)) continue;
          seen.add(approval.approval_id);
          context.io.stdout(line(approval, flags, context));
        }
        // Forget what is no longer pending, so the set stays as small as the queue.
        const current = new Set(pending.map((approval) => approval.approval_id));
        for (const id of seen) if (!current.has(id)) seen.delete(id);
      } catch (error) {
        if (GatewayError.isGatewayError(error) && exitCodeFor(error) === EXIT.auth) {
          return await withGateway(() => Promise.reject(error));
        }
        if (!failing) {
          const why =
            ConnectionError.isConnectionError(error) || GatewayError.isGatewayError(error)
              ? error.message
              : String(error);
          context.io.stderr(`agw: cannot list approvals (${why}); retrying with backoff\n`);
        }
        failing = true;
        wait = Math.min(wait * 2, MAX_BACKOFF_SECONDS);
      }
      const timer = new Promise<'tick'>((resolve) => setTimeout(() => resolve('tick'), wait * 1000));
      if ((await Promise.race([timer, signal.stopped.then(() => 'stop' as const)])) === 'stop') return;
    }
  } finally {
    signal.dispose();
  }
}

function look(client: AdminClient, organization: string | undefined): Promise<RunApproval[]> {
  return client.listApprovals({
    status: 'pending',
    limit: WATCH_LIMIT,
    ...(organization ? { organization } : {}),
  });
}

function line(approval: RunApproval, flags: ApprovalsWatchFlags, context: CommandContext): string {
  if (flags.json) return `${JSON.stringify(approval)}\n`;
  const colors = colorsFor(context.io, context.env);
  return `${approvalStatusText(approval.status, colors)}  ${approval.approval_id}  ${approval.capability_id}@${approval.capability_version}  org ${approval.organization_id}  expires ${formatTime(approval.expires_at)}\n`;
}
