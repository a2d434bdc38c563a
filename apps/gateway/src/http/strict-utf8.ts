import { isUtf8 } from 'node:buffer';
import { GatewayError } from './gateway-error.js';

// fatal: invalid bytes throw instead of becoming U+FFFD, so what is stored is what was sent.
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes a request body as strict UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above
 * U+10FFFF; a leading BOM is dropped). Invalid bytes are refused with 400 `invalid_json` naming the
 * byte offset of the first bad sequence, instead of being silently replaced by U+FFFD (issue 12,
 * finding 6: `a\xff\xfe.txt` used to be stored as `a��.txt`).
 */
export function decodeUtf8Strict(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new GatewayError('invalid_json', {
      message: `The request body is not valid UTF-8 (byte offset ${invalidUtf8Offset(bytes)}).`,
      hint: 'Send the JSON text encoded as UTF-8; escape other characters as \\uXXXX.',
    });
  }
}

/**
 * Refuses a body that is not UTF-8 without decoding it (400 `bad_request` naming the offset of the first
 * bad byte): the public routes take text (JSON, a form, a beacon) and decode it themselves.
 */
export function assertUtf8(body: Uint8Array): void {
  if (!isUtf8(body)) {
    throw new GatewayError('bad_request', {
      message: `The request body is not valid UTF-8 (byte offset ${invalidUtf8Offset(body)}).`,
    });
  }
}

/**
 * The offset of the first byte that does not start a well-formed UTF-8 sequence (the table of
 * well-formed sequences in Unicode §3.9, D92), or -1 when every byte is part of one. Only runs on the
 * failure path, to tell the client where to look.
 */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index] as number;
    if (lead < 0x80) {
      index += 1;
      continue;
    }
    const shape = sequenceShape(lead);
    if (shape === undefined) return index;
    for (let k = 1; k <= shape.trailing; k += 1) {
      const byte = bytes[index + k];
      const [low, high] = k === 1 ? [shape.low, shape.high] : [0x80, 0xbf];
      if (byte === undefined || byte < low || byte > high) return index;
    }
    index += shape.trailing + 1;
  }
  return -1;
}

/** How many continuation bytes follow `lead`, and the range of the first (it excludes overlongs etc.). */
function sequenceShape(lead: number): { trailing: number; low: number; high: number } | undefined {
  if (lead >= 0xc2 && lead <= 0xdf) return { trailing: 1, low: 0x80, high: 0xbf };
  if (lead === 0xe0) return { trailing: 2, low: 0xa0, high: 0xbf };
  if (lead === 0xed) return { trailing: 2, low: 0x80, high: 0x9f }; // no UTF-16 surrogates
  if (lead >= 0xe1 && lead <= 0xef) return { trailing: 2, low: 0x80, high: 0xbf };
  if (lead === 0xf0) return { trailing: 3, low: 0x90, high: 0xbf };
  if (lead >= 0xf1 && lead <= 0xf3) return { trailing: 3, low: 0x80, high: 0xbf };
  if (lead === 0xf4) return { trailing: 3, low: 0x80, high: 0x8f }; // nothing above U+10FFFF
  return undefined;
}
