import contentType from 'content-type';
import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import { GatewayError } from './gateway-error.js';
import { assertNoNulCharacter } from './nul-character.js';
import type { GatewayState } from './state.js';

/**
 * Parses a JSON request body into `ctx.state.body` for routes that take one.
 * Missing or non-JSON Content-Type → 415 `unsupported_media_type`; a body (declared or streamed) over
 * `limitBytes` → 413 `payload_too_large`; an empty or malformed body → 400 `invalid_json`; a string
 * holding U+0000 (which PostgreSQL cannot store) → 400 `validation_failed`.
 *
 * @example
 * router.post('/register', jsonBody(config.bodyLimitBytes), register);
 */
export function jsonBody(limitBytes: number): Middleware<GatewayState> {
  return async (ctx, next) => {
    assertJsonContentType(ctx.get('content-type'));

    const declared = ctx.get('content-length');
    if (declared !== '' && Number(declared) > limitBytes) {
      // Refuse before reading, and close the connection so the unread body is not parsed as a request.
      throw tooLarge(limitBytes);
    }
    let text: string;
    try {
      text = await getRawBody(ctx.req, {
        length: declared === '' ? undefined : declared,
        limit: limitBytes,
        encoding: 'utf-8',
      });
    } catch (error) {
      const type = (error as { type?: unknown }).type;
      if (type === 'entity.too.large') throw tooLarge(limitBytes);
      throw new GatewayError('bad_request', { message: 'The request body could not be read.', cause: error });
    }
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
    assertNoNulCharacter(text, ctx.state.body);
    await next();
  };
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

function tooLarge(limitBytes: number): GatewayError {
  return new GatewayError('payload_too_large', {
    message: `The request body exceeds the limit of ${limitBytes} bytes.`,
    headers: { Connection: 'close' },
  });
}
