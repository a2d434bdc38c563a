import type { RunApprovalStatus } from '@agw/client/admin';
import type { Colors } from './output.js';

/** A run approval's status as `agw approvals list`, `show` and `--watch` print it. */
export function approvalStatusText(status: RunApprovalStatus, colors: Colors): string {
  if (status === 'approved') return colors.green(status);
  if (status === 'denied') return colors.red(status);
  if (status === 'expired') return colors.dim(status);
  return colors.yellow(status);
}
