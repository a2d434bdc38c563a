import { Buffer, isUtf8 } from 'node:buffer';
import type { CapabilityViolation } from '../define.js';

/** Largest accepted upload in decoded bytes: 10 MiB (the contract caps the base64 text to match). */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

const CONTENT_POINTER = '/params/content_base64';
const MIME_POINTER = '/params/mime_type';

/** The result of decoding: the bytes, or why the text is refused. */
export type DecodedContent =
  | { readonly ok: true; readonly bytes: Buffer }
  | { readonly ok: false; readonly violation: CapabilityViolation };

/**
 * Decodes canonical base64 (RFC 4648 §4, standard alphabet, padded to a multiple of 4, zero pad bits),
 * refusing everything else. Node's decoder is lenient (it skips unknown characters and accepts missing
 * padding), so the decoded bytes are re-encoded and must give back exactly the input: two different
 * texts can then never be stored as the same document, and nothing the agent sent is silently dropped.
 * The size is computed from the length first, so an oversized text is refused before it is decoded.
 */
export function decodeCanonicalBase64(text: string): DecodedContent {
  if (text.length % 4 !== 0) {
    return refuse(
      CONTENT_POINTER,
      'contentEncoding',
      'content_base64 is not canonical base64: its length is not a multiple of 4.',
    );
  }
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const size = (text.length / 4) * 3 - padding;
  if (size > MAX_UPLOAD_BYTES) {
    return refuse(
      CONTENT_POINTER,
      'maxContentBytes',
      `The decoded content is ${size} bytes; the limit is ${MAX_UPLOAD_BYTES} bytes (10 MiB).`,
    );
  }
  const bytes = Buffer.from(text, 'base64');
  if (bytes.toString('base64') !== text) {
    return refuse(
      CONTENT_POINTER,
      'contentEncoding',
      'content_base64 is not canonical base64 (standard alphabet A-Z a-z 0-9 + /, "=" padding only at the end, no whitespace).',
    );
  }
  return { ok: true, bytes };
}

// Names that mean the same type as the one file-type reports. Anything else must match exactly.
const ALIASES: Readonly<Record<string, string>> = {
  'text/xml': 'application/xml',
  'text/rtf': 'application/rtf',
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/mp3': 'audio/mpeg',
  'application/x-pdf': 'application/pdf',
  'application/x-zip-compressed': 'application/zip',
};

const TEXT_APPLICATION_TYPES = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-ndjson',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/sql',
  'application/graphql',
  'application/x-sh',
  'application/csv',
]);

/** `text/*`, JSON, XML, YAML, scripts and every `+json` / `+xml` type: checked as UTF-8 text. */
export function isTextLike(mime: string): boolean {
  return (
    mime.startsWith('text/') ||
    TEXT_APPLICATION_TYPES.has(mime) ||
    mime.endsWith('+json') ||
    mime.endsWith('+xml')
  );
}

/** What file-type knows: its detector and the list of types it can recognise. */
export interface FileTypeDetector {
  detect(bytes: Uint8Array): Promise<string | undefined>;
  readonly detectable: ReadonlySet<string>;
}

let fileType: Promise<FileTypeDetector> | undefined;

/**
 * file-type is ESM only; a dynamic import keeps this package's CommonJS build loadable on every Node 20
 * (a static import would become a `require` of an ES module). Loaded once, on the first upload.
 */
export function loadFileType(): Promise<FileTypeDetector> {
  fileType ??= import('file-type').then((module) => ({
    detect: async (bytes) => (await module.fileTypeFromBuffer(bytes))?.mime,
    detectable: module.supportedMimeTypes as ReadonlySet<string>,
  }));
  return fileType;
}

/**
 * Is the content what `declared` says? The rules, in order:
 * 1. `application/octet-stream` claims nothing and accepts any bytes.
 * 2. A signature file-type recognises must be the declared type (after {@link ALIASES}); an XML
 *    signature also fits any `+xml` type (SVG, XHTML), and any text signature fits `text/plain`.
 * 3. A text-like declared type needs valid UTF-8 without NUL bytes (most text formats have no
 *    signature, so this is the check that can be made).
 * 4. A type file-type can recognise but did not find in the content is refused.
 * 5. Any other binary type is accepted as declared: nothing in the content contradicts it.
 */
export async function checkMimeType(
  declared: string,
  bytes: Uint8Array,
  detector: FileTypeDetector,
): Promise<CapabilityViolation | undefined> {
  if (declared === 'application/octet-stream') return undefined;
  const expected = ALIASES[declared] ?? declared;
  const detected = await detector.detect(bytes);
  if (detected !== undefined && !fits(expected, detected)) {
    return mismatch(
      `mime_type is ${declared} but the content is ${detected} (recognised from its signature).`,
    );
  }
  if (isTextLike(expected)) {
    if (bytes.includes(0)) {
      return mismatch(`mime_type is ${declared} (text) but the content contains NUL bytes, so it is binary.`);
    }
    if (!isUtf8(bytes)) {
      return mismatch(`mime_type is ${declared} (text) but the content is not valid UTF-8.`);
    }
    return undefined;
  }
  if (detected === undefined && detector.detectable.has(expected)) {
    return mismatch(
      `mime_type is ${declared} but the content has no ${expected} signature (no known type recognised).`,
    );
  }
  return undefined;
}

function fits(expected: string, detected: string): boolean {
  if (expected === detected) return true;
  if (detected === 'application/xml' && expected.endsWith('+xml')) return true;
  return expected === 'text/plain' && isTextLike(detected);
}

function mismatch(message: string): CapabilityViolation {
  return { schema_pointer: MIME_POINTER, keyword: 'contentMediaType', message };
}

function refuse(pointer: string, keyword: string, message: string): DecodedContent {
  return { ok: false, violation: { schema_pointer: pointer, keyword, message } };
}
