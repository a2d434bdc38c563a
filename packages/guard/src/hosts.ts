/**
 * Host allow-list matching for egress. Entries are exact host names (`api.example.com`, `127.0.0.1`)
 * or `*.example.com`, which matches subdomains only (not `example.com` itself). Matching is
 * case-insensitive, ignores a trailing dot and ignores the port.
 */
export function isHostAllowed(host: string, allowList: readonly string[]): boolean {
  const candidate = normalizeHost(host);
  if (candidate === '') return false;
  return allowList.some((entry) => {
    const pattern = normalizeHost(entry);
    if (pattern.startsWith('*.'))
      return candidate.endsWith(pattern.slice(1)) && candidate.length > pattern.length - 1;
    return pattern !== '' && candidate === pattern;
  });
}

/** Lower-cases a host name and drops a trailing dot and IPv6 brackets. */
export function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[(.*)\]$/, '$1');
}
