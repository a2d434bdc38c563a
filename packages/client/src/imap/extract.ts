import type { OtpExtraction } from '@agw/contracts';
import { readMail } from './mime.js';

/**
 * Finds the agent code in one raw RFC 5322 message the way `extraction` describes: the decoded Subject must
 * contain `subject_contains` (`Ref: <correlation_id>`), and a body line must match `code_regex`
 * (multiline, CRLF normalised) whose named group `otp` is the code. Resolves undefined when not found.
 */
export async function findOtpInMessage(
  source: string | Uint8Array,
  extraction: Pick<OtpExtraction, 'subject_contains' | 'code_regex'>,
): Promise<string | undefined> {
  const mail = await readMail(source);
  if (!mail.subject.includes(extraction.subject_contains)) return undefined;
  const otp = new RegExp(extraction.code_regex, 'm').exec(mail.text)?.groups?.otp;
  return otp === undefined || otp === '' ? undefined : otp;
}
