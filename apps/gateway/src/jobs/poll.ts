import { INTERFACE_VERSION, type InvokeResponse } from '@agw/contracts';

/** Where a job is polled: `GET /mcp/jobs/<id>` with the installation key. */
export const jobPath = (id: string): string => `/mcp/jobs/${id}`;

// The client polls after `retry_after_seconds`: soon for a young job, less often as it ages (server-side
// back-off), never rarer than every 30 s.
const MAX_POLL_SECONDS = 30;

/** Seconds until the next poll of a job `ageMs` old: 1 s for the first 10 s, then a tenth of its age. */
export function pollAfterSeconds(ageMs: number): number {
  return Math.min(MAX_POLL_SECONDS, Math.max(1, Math.ceil(ageMs / 10_000)));
}

/** The `poll` object of an `accepted` answer (free-form in the spec; this is our shape, docs/jobs.md). */
export interface JobPoll {
  readonly job_id: string;
  /** A path relative to the gateway's base URL; the SDK refuses anything else. */
  readonly url: string;
  readonly job_status: 'queued' | 'running';
  readonly retry_after_seconds: number;
}

/** The `accepted` InvokeResponse of a job that has not finished: the same shape at invoke and at poll. */
export function acceptedResponse(job: {
  readonly id: string;
  readonly capability_id: string;
  readonly capability_version: string;
  readonly accepted_audit_id: string;
  readonly status: 'queued' | 'running';
  readonly ageMs: number;
}): InvokeResponse {
  const poll: JobPoll = {
    job_id: job.id,
    url: jobPath(job.id),
    job_status: job.status,
    retry_after_seconds: pollAfterSeconds(job.ageMs),
  };
  return {
    interface_version: INTERFACE_VERSION,
    status: 'accepted',
    capability_id: job.capability_id,
    resolved_version: job.capability_version,
    audit_id: job.accepted_audit_id,
    poll: { ...poll },
  };
}
