import type { OtpExtraction } from './schemas/resources.js';

/** Subject fragment of the agent OTP mail: `Ref: <correlation_id>`. */
export function agentOtpSubjectFragment(correlationId: string): string {
  return `Ref: ${correlationId}`;
}

/** Default pattern of the standalone body line `Code: <OTP>`; the code is the named group `otp`. */
export const AGENT_OTP_CODE_REGEX = '^Code: (?<otp>[0-9]{6,8})$';

/**
 * The `extraction` block of an agent OTP delivery: how the agent finds the mail (IMAP SUBJECT search for
 * `Ref: <correlation_id>`) and the code in it (the line matching `codeRegex`).
 */
export function buildOtpExtraction(
  correlationId: string,
  codeRegex: string = AGENT_OTP_CODE_REGEX,
): OtpExtraction {
  const fragment = agentOtpSubjectFragment(correlationId);
  return {
    mailbox: 'agent_email',
    imap_search: { header: 'Subject', contains: fragment },
    subject_contains: fragment,
    code_line_prefix: 'Code: ',
    code_regex: codeRegex,
    verify_endpoint: '/agent-otp/verify',
  };
}

/** Finds the code in a mail body the way `extraction.code_regex` describes (multiline, first match). */
export function extractOtpFromBody(
  body: string,
  codeRegex: string = AGENT_OTP_CODE_REGEX,
): string | undefined {
  const match = new RegExp(codeRegex, 'm').exec(body.replaceAll('\r\n', '\n'));
  return match?.groups?.otp;
}
