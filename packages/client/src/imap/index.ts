/**
 * @agw/client/imap — reads the agent mailbox code (POST /agent-otp/verify) over IMAP with imapflow, an
 * optional peer dependency loaded on first use. Node only.
 */

export { findOtpInMessage } from './extract.js';
export type { MimePart } from './mime.js';
export { decodeHeaderValue, parsePart, textBodies } from './mime.js';
export type { ImapClientLike, ImapConnectionConfig, MailboxReaderOptions } from './reader.js';
export { createMailboxOtpReader, MailboxOtpTimeoutError, readAgentOtpFromMailbox } from './reader.js';
