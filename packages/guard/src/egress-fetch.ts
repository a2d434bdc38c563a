import { GuardConfigError, GuardDenied } from './errors.js';
import { isHostAllowed } from './hosts.js';

/** The fetch signature handlers get: a URL (string or URL) and standard init. */
export type EgressFetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** Options of {@link createEgressFetch}. */
export interface EgressFetchOptions {
  /** Allowed URL protocols. Default `['https:']`. */
  readonly protocols?: readonly string[];
  /** Redirects followed (each re-checked) before giving up. Default 5. */
  readonly maxRedirects?: number;
  /** Called with each refused URL before the error is thrown, e.g. to write an audit record. */
  readonly onDenied?: (url: URL, reason: string) => void;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/**
 * Wraps a fetch so it reaches only allow-listed hosts: every request and every redirect hop is
 * checked (redirects are followed by hand with `redirect: 'manual'`), and credentials are dropped
 * when a redirect changes origin. A refused URL throws {@link GuardDenied} with `egress_denied`.
 * Host names are checked as written: DNS answers are not (a rebinding-safe resolver belongs to the
 * network layer).
 * @example
 * const fetchOut = createEgressFetch(['api.example.com'], fetch);
 * const response = await fetchOut('https://api.example.com/v1/rates');
 */
export function createEgressFetch(
  allowList: readonly string[],
  fetchImpl: typeof fetch,
  options: EgressFetchOptions = {},
): EgressFetch {
  if (!Array.isArray(allowList) || allowList.some((host) => typeof host !== 'string')) {
    throw new GuardConfigError('createEgressFetch needs an array of host names.');
  }
  if (typeof fetchImpl !== 'function')
    throw new GuardConfigError('createEgressFetch needs a fetch implementation.');
  const protocols = options.protocols ?? ['https:'];
  const maxRedirects = options.maxRedirects ?? 5;
  if (!Number.isInteger(maxRedirects) || maxRedirects < 0) {
    throw new GuardConfigError('maxRedirects must be a non-negative integer.');
  }
  const hosts = [...allowList];

  function assertAllowed(url: URL): void {
    const reason = !protocols.includes(url.protocol)
      ? `protocol ${url.protocol} is not allowed`
      : !isHostAllowed(url.hostname, hosts)
        ? `host ${url.hostname} is not on the egress allow-list`
        : undefined;
    if (reason === undefined) return;
    options.onDenied?.(url, reason);
    throw new GuardDenied({
      code: 'egress_denied',
      message: `Egress refused: ${reason}.`,
      details: [{ host: url.hostname }],
    });
  }

  return async function egressFetch(input, init = {}) {
    let url = new URL(input);
    let requestInit: RequestInit = { ...init, redirect: 'manual' };
    for (let hop = 0; ; hop += 1) {
      assertAllowed(url);
      const response = await fetchImpl(url, requestInit);
      const location = response.headers.get('location');
      if (!redirectStatuses.has(response.status) || location === null || init.redirect === 'manual')
        return response;
      if (init.redirect === 'error') throw new TypeError('Redirect refused: redirect mode is "error".');
      if (hop >= maxRedirects) throw new TypeError(`Too many redirects (more than ${maxRedirects}).`);
      await response.body?.cancel();
      const next = new URL(location, url);
      requestInit = nextHopInit(requestInit, response.status, next.origin !== url.origin);
      url = next;
    }
  };
}

/** Fetch-spec redirect rules: 303 (and 301/302 after POST) become a bodiless GET; cross-origin drops credentials. */
function nextHopInit(init: RequestInit, status: number, crossOrigin: boolean): RequestInit {
  const method = (init.method ?? 'GET').toUpperCase();
  const toGet = status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST';
  const headers = new Headers(init.headers);
  if (crossOrigin) {
    headers.delete('authorization');
    headers.delete('cookie');
    headers.delete('proxy-authorization');
  }
  if (toGet) {
    for (const name of [
      'content-type',
      'content-length',
      'content-encoding',
      'content-language',
      'content-location',
    ]) {
      headers.delete(name);
    }
    const { body: _body, ...rest } = init;
    return { ...rest, method: 'GET', headers };
  }
  return { ...init, headers };
}
