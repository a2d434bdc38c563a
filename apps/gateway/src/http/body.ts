import type { IncomingMessage } from 'node:http';
import contentType from 'content-type';
import type { Context, Middleware } from 'koa';
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

/**
 * {@link readBodyBytes} on Node's request itself (the public routes' dispatch has no Koa context): a
 * declared Content-Length over the limit is refused before a byte is read, a streamed body at the limit
 * (413, the connection closes, so the unread rest is never parsed as a request); a body that ends short
 * of its Content-Length, or a request that breaks off, is 400 `bad_request`. Read from the stream's own
 * events: raw-body's listeners, checks and promise were about 1 µs of every page view.
 */
export function readRequestBytes(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = request.headers['content-length'];
  const expected = declared === undefined || declared === '' ? undefined : Number(declared);
  if (expected !== undefined && expected > limitBytes) return Promise.reject(tooLarge(limitBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (error: GatewayError | undefined) => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onBroken);
      request.off('close', onBroken);
      if (error === undefined)
        resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received));
      else {
        // The rest is not read: the 413 closes the connection, a broken request has none left.
        request.pause();
        reject(error);
      }
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) finish(tooLarge(limitBytes));
      else chunks.push(chunk);
    };
    const onEnd = () => finish(expected === undefined || received === expected ? undefined : unreadable());
    const onBroken = (cause?: unknown) => finish(unreadable(cause));
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onBroken);
    request.on('close', onBroken);
  });
}

function unreadable(cause?: unknown): GatewayError {
  return new GatewayError('bad_request', { message: 'The request body could not be read.', cause });
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
