import { agentOtpSubjectFragment } from '@agw/contracts';

/** Context shown in code mails (names are user input: control characters are removed). */
export interface CodeMailContext {
  readonly code: string;
  readonly expiresAt: string;
  readonly organizationName: string;
  readonly appName: string;
  readonly appSlug: string;
}

/** The owner's code mail: who asks, for which organization, and the code on a `Code: ` line. */
export function ownerCodeMail(context: CodeMailContext): { subject: string; text: string } {
  const org = clean(context.organizationName);
  return {
    subject: `Agent Gateway: confirm the agent installation for ${org}`,
    text: [
      'An agent asks to be installed with you as its responsible owner.',
      '',
      `App: ${clean(context.appName)} (${clean(context.appSlug)})`,
      `Organization: ${org}`,
      '',
      'If you agree, give the agent this code:',
      '',
      `Code: ${context.code}`,
      '',
      `The code expires at ${context.expiresAt}.`,
      'If you did not expect this mail, ignore it: without the code',
      'the installation stays unconfirmed.',
      '',
    ].join('\n'),
  };
}

/**
 * The agent mailbox's code mail: the subject carries `Ref: <correlation_id>` and the body a
 * standalone line `Code: <OTP>`, exactly what the delivery's `extraction` describes.
 */
export function agentCodeMail(context: CodeMailContext & { correlationId: string }): {
  subject: string;
  text: string;
} {
  return {
    subject: `Agent Gateway mailbox code ${agentOtpSubjectFragment(context.correlationId)}`,
    text: [
      'Mailbox verification of an Agent Gateway installation.',
      `Organization: ${clean(context.organizationName)}`,
      '',
      `Code: ${context.code}`,
      '',
      `Submit it to POST /agent-otp/verify before ${context.expiresAt}.`,
      '',
    ].join('\n'),
  };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f]+/g;

function clean(value: string): string {
  return value.replace(CONTROL, ' ').slice(0, 160);
}
