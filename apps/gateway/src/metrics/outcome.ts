import { errorCodes } from '@agw/contracts';
import { toGatewayError } from '../http/error-handler.js';
import type { MetaToolAnswer } from '../meta-tools/answer.js';

const STATUSES = new Set(['succeeded', 'pending_approval', 'accepted']);
// A stored answer (a mutating invoke's, replayed or not) starts `{"interface_version":"1.0","status":"…"`.
const STORED_STATUS = /"status":"([a-z_]{1,32})"/;

/**
 * The `outcome` label of an invoke or dry_run answer: `succeeded`, `pending_approval` or `accepted`
 * (an invoke's 200), `valid` or `invalid` (a dry run's 200), else the error code. Only values from
 * these lists and the contracts' error table: `other` for anything else, so the label stays bounded.
 */
export function answerOutcome(answer: MetaToolAnswer): string {
  if (answer.errorCode !== undefined) return knownCode(answer.errorCode);
  const { body } = answer;
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    const text = typeof body === 'string' ? body.slice(0, 160) : body.toString('utf8', 0, 160);
    const status = STORED_STATUS.exec(text)?.[1];
    return status !== undefined && STATUSES.has(status) ? status : 'other';
  }
  const { status, valid } = body as { status?: unknown; valid?: unknown };
  if (typeof valid === 'boolean') return valid ? 'valid' : 'invalid';
  return typeof status === 'string' && STATUSES.has(status) ? status : 'other';
}

/** The `outcome` label of a call that threw instead of answering (the error handler renders it). */
export function thrownOutcome(thrown: unknown): string {
  return knownCode(toGatewayError(thrown).code);
}

function knownCode(code: string): string {
  return Object.hasOwn(errorCodes, code) ? code : 'other';
}
