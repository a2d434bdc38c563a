import { type DestinationStream, type Logger, pino } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger } from 'pino';

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  readonly level: LogLevel;
  /** Where lines go; stdout (synchronously, so nothing is lost on exit) when omitted. */
  readonly destination?: DestinationStream;
}

const REDACTED = '[redacted]';

// Header and field names whose values are secrets wherever they appear (pino's own `redact` below is
// the second line of defence; wildcards there only match one level, so this walks the whole object).
const SECRET_KEY =
  /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|idempotency-key|password|passwd|secret|otp|token|.*_token|.*_key|.*_secret|.*_otp)$/i;
// An installation or bootstrap key inside any string (an error message, a URL, a header value).
const KEY_IN_TEXT = /\b([a-z][a-z0-9]*_ak_)[A-Za-z0-9._~-]+/g;
// CR, LF and other control characters are stripped from logged strings (log injection).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f]+/g;

/**
 * Returns a copy of `value` with secret-named fields replaced and key-shaped substrings masked.
 * Used for every object that reaches the log.
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.replace(KEY_IN_TEXT, `$1${REDACTED}`);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  if (value instanceof Error) return redactSecrets(pino.stdSerializers.err(value), depth);
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    copy[key] = SECRET_KEY.test(key) ? REDACTED : redactSecrets(item, depth + 1);
  }
  return copy;
}

/** Removes control characters from a string before it is logged. */
export function sanitizeForLog(value: string): string {
  return value.replace(CONTROL, ' ');
}

/**
 * Creates the gateway's structured JSON logger with secret redaction on every line.
 *
 * @example
 * const logger = createLogger({ level: 'info' });
 */
export function createLogger(options: LoggerOptions): Logger {
  const destination = options.destination ?? pino.destination({ dest: 1, sync: true });
  return pino(
    {
      level: options.level,
      base: { service: 'agent-gateway' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'req.headers["x-api-key"]',
          '*.password',
          '*.otp',
          '*.secret',
          '*.token',
          '*.installation_key',
          '*.bootstrap_key',
        ],
        censor: REDACTED,
      },
      formatters: {
        log: (object) => redactSecrets(object) as Record<string, unknown>,
      },
    },
    destination,
  );
}
