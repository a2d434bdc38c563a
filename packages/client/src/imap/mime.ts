import PostalMime, { decodeWords } from 'postal-mime';

// MIME parsing (multipart, transfer encodings, charsets, RFC 2047 words, bounded nesting) is
// postal-mime's; what is ours is which text an OTP mail's code is read from.

/** A mail as the agent-code reader and `agw mail` read it: decoded header texts and the text body. */
export interface MailText {
  /** The decoded header texts ('' when absent); `date` as the mail states it. */
  readonly subject: string;
  readonly from: string;
  readonly to: string;
  readonly date: string;
  readonly message_id: string;
  /** The text/plain parts, or the text of the HTML body when there are none; lines end with `\n`. */
  readonly text: string;
}

/** Plain text from HTML: line breaks kept, tags dropped, the common entities decoded. */
function htmlToText(html: string): string {
  return html
    .replace(/<(br|\/p|\/div|\/tr|\/h[1-6]|\/li)\b[^>]*>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** Reads one raw RFC 5322 message (text or bytes). */
export async function readMail(source: string | Uint8Array): Promise<MailText> {
  const email = await PostalMime.parse(source);
  const header = (key: string) => {
    const value = email.headers.find((line) => line.key === key)?.value;
    return value === undefined ? '' : decodeWords(value).trim();
  };
  const text = email.text ?? (email.html === undefined ? '' : htmlToText(email.html));
  return {
    subject: header('subject'),
    from: header('from'),
    to: header('to'),
    date: header('date'),
    message_id: header('message-id'),
    text: text.replace(/\r\n?/g, '\n'),
  };
}
