/**
 * Just enough RFC 5322/2045/2047 to read the text of an OTP mail without a mail-parser dependency: header
 * unfolding, encoded words, multipart bodies, quoted-printable and base64, charsets via TextDecoder.
 * Bodies are handled as binary strings (one char per byte) until a leaf part is decoded.
 */

/** A parsed message or body part. */
export interface MimePart {
  /** Lower-cased header names; the first occurrence wins. */
  headers: Map<string, string>;
  /** The raw body as a binary string. */
  body: string;
}

/** Bytes → binary string (one char per byte), without Buffer so it also runs in browsers. */
export function toBinaryString(source: string | Uint8Array): string {
  if (typeof source === 'string') return source;
  let out = '';
  for (let index = 0; index < source.length; index += 0x8000) {
    out += String.fromCharCode(...source.subarray(index, index + 0x8000));
  }
  return out;
}

function binaryToBytes(binary: string): Uint8Array {
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index) & 0xff;
  return bytes;
}

function decodeBytes(bytes: Uint8Array, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** Splits a message (or part) into unfolded headers and body at the first empty line. */
export function parsePart(source: string | Uint8Array): MimePart {
  const raw = toBinaryString(source);
  const separator = /\r?\n\r?\n/.exec(raw);
  const headerBlock = separator === null ? raw : raw.slice(0, separator.index);
  const body = separator === null ? '' : raw.slice(separator.index + separator[0].length);
  const headers = new Map<string, string>();
  for (const line of headerBlock.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return { headers, body };
}

/** `text/plain; charset="utf-8"` → `{ type: 'text/plain', params: { charset: 'utf-8' } }`. */
export function parseContentType(value: string | undefined): {
  type: string;
  params: Record<string, string>;
} {
  const [type = 'text/plain', ...rest] = (value ?? 'text/plain').split(';');
  const params: Record<string, string> = {};
  for (const param of rest) {
    const equals = param.indexOf('=');
    if (equals < 0) continue;
    params[param.slice(0, equals).trim().toLowerCase()] = param
      .slice(equals + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
  }
  return { type: type.trim().toLowerCase(), params };
}

function decodeQuotedPrintableToBinary(text: string): string {
  return text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

function decodeBase64ToBinary(text: string): string {
  return atob(text.replace(/[^A-Za-z0-9+/=]/g, ''));
}

/** Decodes a leaf body by its Content-Transfer-Encoding and charset. */
export function decodeBody(part: MimePart): string {
  const encoding = (part.headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  const binary =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintableToBinary(part.body)
      : encoding === 'base64'
        ? decodeBase64ToBinary(part.body)
        : part.body;
  return decodeBytes(
    binaryToBytes(binary),
    parseContentType(part.headers.get('content-type')).params.charset,
  );
}

/** Decodes RFC 2047 encoded words (`=?utf-8?Q?...?=`, `=?utf-8?B?...?=`) in a header value. */
export function decodeHeaderValue(value: string): string {
  return value
    .replace(/(\?=)\s+(=\?)/g, '$1$2')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_, charset: string, kind: string, text: string) => {
      const binary =
        kind.toUpperCase() === 'B'
          ? decodeBase64ToBinary(text)
          : text
              .replace(/_/g, ' ')
              .replace(/=([0-9A-Fa-f]{2})/g, (__, hex: string) =>
                String.fromCharCode(Number.parseInt(hex, 16)),
              );
      return decodeBytes(binaryToBytes(binary), charset.split('*')[0]);
    });
}

function childParts(part: MimePart, boundary: string): MimePart[] {
  const delimiter = `--${boundary}`;
  const sections = part.body.split(new RegExp(`\\r?\\n?${escapeRegExp(delimiter)}`));
  // sections[0] is the preamble; a section starting with `--` is the epilogue after the close delimiter.
  return sections
    .slice(1)
    .filter((section) => !section.startsWith('--'))
    .map((section) => parsePart(section.replace(/^[ \t]*\r?\n/, '')));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
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

/** The decoded text bodies of a message: every text/plain part, or the text of text/html parts when none. */
export function textBodies(message: MimePart): string[] {
  const plain: string[] = [];
  const html: string[] = [];
  const visit = (part: MimePart, depth: number) => {
    const { type, params } = parseContentType(part.headers.get('content-type'));
    if (type.startsWith('multipart/') && params.boundary !== undefined && depth < 10) {
      for (const child of childParts(part, params.boundary)) visit(child, depth + 1);
    } else if (type === 'text/plain') {
      plain.push(decodeBody(part));
    } else if (type === 'text/html') {
      html.push(htmlToText(decodeBody(part)));
    }
  };
  visit(message, 0);
  return plain.length > 0 ? plain : html;
}
