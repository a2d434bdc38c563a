import type { IncomingMessage } from 'node:http';
import contentType from 'content-type';
import type { Context, Middleware } from 'koa';
import getRawBody from 'raw-body';
import { GatewayError } from './gateway-error.js';
import { assertJsonDepth } from './json-depth.js';
import { assertNoNulCharacter } from './nul-character.js';
import type { GatewayState } from './state.js';
import { decodeUtf8Strict } from './strict-utf8.js';

/**
 * Parses a JSON request body into `ctx.state.body` for routes that take one.
 * Missing or non-JSON Content-Type → 415 `unsupported_media_type`; a body (declared or streamed) over
 * `limitBytes` → 413 `payload_too_large`; an empty, malformed or not UTF-8 body → 400 `invalid_json`; a string
 * holding U+0000 (which PostgreSQL cannot store) or nesting deeper than MAX_JSON_DEPTH → 400
 * `validation_failed`.
 *
 * @example
 * router.post('/register', jsonBody(config.bodyLimitBytes), register);
 */
export function jsonBody(limitBytes: number): Middleware<GatewayState> {
  return async (ctx, next) => {
    assertJsonContentType(ctx.get('content-type'));

    const text = await readBodyText(ctx, limitBytes);
    if (text.trim() === '') {
      throw new GatewayError('invalid_json', {
        message: 'The request body is empty; send a JSON object, e.g. {}.',
      });
    }
    try {
      ctx.state.body = JSON.parse(text);
    } catch {
      throw new GatewayError('invalid_json', { message: 'The request body is not valid JSON.' });
    }
    assertJsonDepth(ctx.state.body);
    assertNoNulCharacter(text, ctx.state.body);
    await next();
  };
}

/**
 * Reads the raw request body (at most `limitBytes`) and decodes it as strict UTF-8. A declared
 * Content-Length over the limit is refused before a byte is read (413, Connection: close); a streamed
 * body is cut off at the limit (413); invalid UTF-8 → 400 `invalid_json` (src/http/strict-utf8.ts).
 * Shared by {@link jsonBody} and the MCP endpoint, so every body is read the same way.
 */
export async function readBodyText(ctx: Context, limitBytes: number): Promise<string> {
  return decodeUtf8Strict(await readBodyBytes(ctx, limitBytes));
}

/** The raw request body, at most `limitBytes`, with the 413 rules of {@link readBodyText}. */
export function readBodyBytes(ctx: Context, limitBytes: number): Promise<Buffer> {
  return readRequestBytes(ctx.req, limitBytes);
}

/** {@link readBodyBytes} on Node's request itself (the public routes' dispatch has no Koa context). */
export async function readRequestBytes(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = request.headers['content-length'] ?? '';
  if (declared !== '' && Number(declared) > limitBytes) {
    // Refuse before reading, and close the connection so the unread body is not parsed as a request.
    throw tooLarge(limitBytes);
  }
  let bytes: Buffer;
  try {
    // No `encoding`: raw-body would decode leniently (invalid bytes → U+FFFD).
    bytes = await getRawBody(request, {
      length: declared === '' ? undefined : declared,
      limit: limitBytes,
    });
  } catch (error) {
    const type = (error as { type?: unknown }).type;
    if (type === 'entity.too.large') throw tooLarge(limitBytes);
    throw new GatewayError('bad_request', { message: 'The request body could not be read.', cause: error });
  }
  return bytes;
}

function assertJsonContentType(header: string): void {
  if (header === '') {
    throw new GatewayError('unsupported_media_type', {
      message: 'The Content-Type header is missing; send Content-Type: application/json.',
    });
  }
  let parsed: contentType.ParsedMediaType;
  try {
    parsed = contentType.parse(header);
  } catch {
    throw new GatewayError('unsupported_media_type', {
      message: 'The Content-Type header is malformed; send Content-Type: application/json.',
    });
  }
  const charset = parsed.parameters.charset?.toLowerCase();
  if (
    parsed.type !== 'application/json' ||
    (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
  ) {
    throw new GatewayError('unsupported_media_type', {
      message: 'Only Content-Type: application/json (UTF-8) is accepted.',
    });
  }
}

/** 413 for a body over `limitBytes`; the connection closes, so an unread rest is never parsed. */
export function tooLarge(limitBytes: number): GatewayError {
  return new GatewayError('payload_too_large', {
    message: `The request body exceeds the limit of ${limitBytes} bytes.`,
    headers: { Connection: 'close' },
  });
}
