/** A file attached to a mail (an `.ics`, a PDF, an e-invoice XML). */
export interface MailAttachment {
  readonly filename: string;
  /** MIME type, e.g. `text/calendar; method=REQUEST` or `application/pdf`. */
  readonly contentType: string;
  readonly content: Uint8Array;
}

/** A mail a domain sends: plain text, optional attachments. */
export interface DomainMail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly attachments?: readonly MailAttachment[];
}

/**
 * Sends mail through the gateway's transport (SMTP with `SMTP_URL`, the dev mailbox on the embedded
 * default). `stage` writes the mail to the gateway's outbox in the caller's transaction, so a mail exists
 * exactly when the work that caused it committed; the gateway sends it after commit and retries a failed
 * send. Bodies and attachments are stored encrypted until sent.
 */
export interface MailPort {
  /** Stages one mail in the current transaction; resolves with its outbox id. */
  stage(mail: DomainMail): Promise<string>;
}
