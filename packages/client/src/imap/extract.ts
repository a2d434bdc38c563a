import type { OtpExtraction } from '@agw/contracts';
import { decodeHeaderValue, parsePart, textBodies } from './mime.js';

/**
 * Finds the agent code in one raw RFC 5322 message the way `extraction` describes: the decoded Subject must
 * contain `subject_contains` (`Ref: <correlation_id>`), and a body line must match `code_regex`
 * (multiline, CRLF normalised) whose named group `otp` is the code. Returns undefined when not found.
 */
export function findOtpInMessage(
  source: string | Uint8Array,
  extraction: Pick<OtpExtraction, 'subject_contains' | 'code_regex'>,
): string | undefined {
  const message = parsePart(source);
  const subject = decodeHeaderValue(message.headers.get('subject') ?? '');
  if (!subject.includes(extraction.subject_contains)) return undefined;
  const pattern = new RegExp(extraction.code_regex, 'm');
  for (const text of textBodies(message)) {
    const otp = pattern.exec(text.replace(/\r\n?/g, '\n'))?.groups?.otp;
    if (otp !== undefined && otp !== '') return otp;
  }
  return undefined;
}
