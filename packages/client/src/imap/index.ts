/**
 * @agw/client/imap — reads the agent mailbox code (POST /agent-otp/verify) over IMAP with imapflow, an
 * optional peer dependency loaded on first use. Node only.
 */

export { findOtpInMessage } from './extract.js';
export type { MailText } from './mime.js';
export { readMail } from './mime.js';
export type { ImapClientLike, ImapConnectionConfig, MailboxReaderOptions } from './reader.js';
export { createMailboxOtpReader, MailboxOtpTimeoutError, readAgentOtpFromMailbox } from './reader.js';
