import type { IncomingHttpHeaders } from 'node:http';

/** Turns a request path into the one a log line or an audit row may hold. */
export type PathRedactor = (path: string) => string;

/** What a path segment that is a credential is logged as. */
export const SECRET_SEGMENT = '[secret]';

interface SecretPosition {
  /** The declared segments before the secret: a literal, or undefined for a parameter (any value). */
  readonly before: readonly (string | undefined)[];
  /** Literals other routes declare at the secret's position after the same segments (`slots`). */
  readonly siblings: ReadonlySet<string>;
}

/**
 * A route parameter named `secret` is a credential (the secret of a booking link: whoever has the path
 * can book). The routes declare where it sits; from that, every path that reaches that position after
 * the same segments is logged with the segment replaced, whatever its method and whether a route
 * matched: `OPTIONS /book/intro/<secret>`, `/book/intro/<secret>/anything`, `/book//<secret>` (a 404 or
 * 405 logs its path too). The match does not depend on the router: literals compare after percent-
 * decoding and without case (the router ignores case), parameters match any segment, even an empty one,
 * extra leading slashes are skipped, and a path with a doubled slash further in is also read collapsed. A literal another route declares at that position after the
 * same segments (`/book/:slug/slots`) is not a secret and stays readable.
 */
export function secretPathRedactor(routePaths: readonly string[]): PathRedactor {
  const declared = routePaths.map((path) => path.split('/').slice(1).map(literalOf));
  const positions: SecretPosition[] = [];
  for (const [index, path] of routePaths.entries()) {
    const segments = path.split('/').slice(1);
    const at = segments.indexOf(':secret');
    if (at === -1) continue;
    const before = (declared[index] as (string | undefined)[]).slice(0, at);
    const siblings = new Set<string>();
    for (const other of declared) {
      const literal = other[at];
      if (literal !== undefined && samePrefix(other.slice(0, at), before)) siblings.add(literal);
    }
    positions.push({ before, siblings });
  }
  if (positions.length === 0) return (path) => path;

  return (path) => {
    const segments = path.split('/');
    // segments[0] is what precedes the first slash (nothing); skip empty segments of extra leading slashes.
    let start = 1;
    while (start < segments.length - 1 && segments[start] === '') start += 1;
    const asSent = [...segments.keys()].slice(start);
    // A doubled slash further in (`/book//intro/<secret>`) is an empty parameter as sent, but a server or
    // a client that collapses slashes reads the secret one segment later: both readings are redacted.
    const collapsed = [...segments.keys()].slice(1).filter((index) => segments[index] !== '');
    for (const reading of [asSent, collapsed]) redactReading(segments, reading, positions);
    return segments.join('/');
  };
}

/** Replaces the secret of each position in `segments`, read as the segments at the indices `reading`. */
function redactReading(segments: string[], reading: readonly number[], positions: readonly SecretPosition[]) {
  for (const { before, siblings } of positions) {
    const at = reading[before.length];
    if (at === undefined) continue;
    const matches = before.every((literal, offset) => {
      if (literal === undefined) return true;
      return normalized(segments[reading[offset] as number] as string) === literal;
    });
    const value = segments[at] as string;
    if (!matches || value === '' || siblings.has(normalized(value))) continue;
    segments[at] = SECRET_SEGMENT;
  }
}

/** The request headers a failure log line shows: a Referer's path redacted like the request's own. */
export function headersWithoutSecrets(
  headers: IncomingHttpHeaders,
  redact: PathRedactor,
): IncomingHttpHeaders {
  const referer = headers.referer;
  if (referer === undefined) return headers;
  return { ...headers, referer: refererWithoutSecrets(referer, redact) };
}

function refererWithoutSecrets(referer: string, redact: PathRedactor): string {
  try {
    const url = new URL(referer);
    // The query string may carry anything; the log needs only where the request came from.
    return `${url.origin}${redact(url.pathname)}`;
  } catch {
    return '[unparsable]';
  }
}

function samePrefix(a: readonly (string | undefined)[], b: readonly (string | undefined)[]): boolean {
  return a.length === b.length && a.every((segment, index) => segment === b[index]);
}

/** A declared segment as it is compared: undefined for a parameter, else the lower-case literal. */
function literalOf(segment: string): string | undefined {
  return segment.startsWith(':') ? undefined : segment.toLowerCase();
}

function normalized(segment: string): string {
  try {
    return decodeURIComponent(segment).toLowerCase();
  } catch {
    return segment.toLowerCase();
  }
}
