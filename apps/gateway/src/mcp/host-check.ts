import { GatewayError } from '../http/gateway-error.js';

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);
// A host name or address with an optional port, nothing else (no path, user info or spaces).
const HOST_SYNTAX = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/**
 * DNS-rebinding protection for /mcp (MCP transport spec, security warning): a browser page on a
 * foreign site that resolves its name to this host sends its own Host and Origin. Accepted: a Host
 * naming the public base URL's host or a loopback name (any port), and no Origin (non-browser
 * clients) or an Origin that is the public base URL's origin or a loopback origin. Anything else is
 * 403 `origin_forbidden`.
 */
export function createHostCheck(publicBaseUrl: string): (host: string, origin: string | undefined) => void {
  const base = new URL(publicBaseUrl);
  return (host, origin) => {
    const hostUrl = HOST_SYNTAX.test(host) ? parse(`${base.protocol}//${host}`) : undefined;
    const hostOk =
      hostUrl !== undefined && (hostUrl.host === base.host || LOOPBACK_HOSTNAMES.has(hostUrl.hostname));
    if (!hostOk) {
      throw new GatewayError('origin_forbidden', {
        message: 'The Host header names neither this gateway nor a loopback address.',
        hint: `Connect to ${base.origin}/mcp or to a loopback address.`,
      });
    }
    if (origin === undefined) return;
    const originUrl = parse(origin);
    const originOk =
      originUrl !== undefined &&
      (originUrl.origin === base.origin ||
        (/^https?:$/.test(originUrl.protocol) && LOOPBACK_HOSTNAMES.has(originUrl.hostname)));
    if (!originOk) {
      throw new GatewayError('origin_forbidden', {
        message: 'Requests from this Origin are not accepted on /mcp.',
        hint: `Only ${base.origin} and loopback origins may call /mcp from a browser.`,
      });
    }
  };
}

function parse(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
