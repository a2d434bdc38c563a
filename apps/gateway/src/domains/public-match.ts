import type { PublicRoute } from '@agw/capabilities';

/** What a request's method and path find among the public routes. */
export type PublicMatch =
  /** A route for this method (a GET route for HEAD), with its parameters decoded. */
  | { readonly kind: 'route'; readonly route: PublicRoute; readonly params: Record<string, string> }
  /** The path is a route's, the method is not: `allow` lists the path's methods (HEAD beside GET). */
  | { readonly kind: 'method'; readonly allow: string }
  /** No public route has this path: the request is the gateway's. */
  | { readonly kind: 'none' };

interface Pattern {
  readonly route: PublicRoute;
  /** Lower-case literals, or undefined for a `:name` parameter (any non-empty segment). */
  readonly segments: readonly (string | undefined)[];
  readonly names: readonly (string | undefined)[];
}

const NONE: PublicMatch = { kind: 'none' };
const SEGMENT = /^(?:[A-Za-z0-9._~-]*|:[A-Za-z_][A-Za-z0-9_]*)$/;

/**
 * Matches requests to the public routes the way @koa/router (its defaults) matches the gateway's own:
 * literals without regard to case, one optional trailing slash, parameters any non-empty segment,
 * percent-decoded (left as sent when that fails), the first declared route winning; HEAD is answered
 * by a GET route, and a known path with another method is told its methods. A route path is plain
 * segments and `:name` parameters (no other router syntax).
 */
export function publicRouteMatcher(
  routes: readonly PublicRoute[],
): (method: string, path: string) => PublicMatch {
  const patterns: Pattern[] = routes.map((route) => {
    const parts = route.path.split('/');
    if (parts[0] !== '' || !parts.every((part) => SEGMENT.test(part))) {
      throw new Error(`public route ${route.path}: only plain segments and :name parameters are supported`);
    }
    return {
      route,
      segments: parts.map((part) => (part.startsWith(':') ? undefined : part.toLowerCase())),
      names: parts.map((part) => (part.startsWith(':') ? part.slice(1) : undefined)),
    };
  });
  // The common request is a route's own path as declared: one lookup (kept only where no earlier route
  // with a parameter would take that path first).
  const exact = new Map<string, PublicRoute>();
  for (const [index, pattern] of patterns.entries()) {
    const { route } = pattern;
    const earlier = patterns.slice(0, index).filter((other) => other.route.method === route.method);
    if (route.path.includes(':') || earlier.some((other) => fits(other, route.path.split('/')))) continue;
    exact.set(`${route.method} ${route.path}`, route);
  }
  // Most requests are the gateway's: their first segment is none a public route starts with.
  const firsts = new Set(patterns.map((pattern) => pattern.segments[1]));

  return (method, path) => {
    const route = exact.get(`${method} ${path}`);
    if (route !== undefined) return { kind: 'route', route, params: {} };
    const slash = path.indexOf('/', 1);
    const first = (slash === -1 ? path.slice(1) : path.slice(1, slash)).toLowerCase();
    if (!firsts.has(first) && !firsts.has(undefined)) return NONE;
    const parts = (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).split('/');
    const wanted = method === 'HEAD' ? 'GET' : method;
    const allow: string[] = [];
    for (const pattern of patterns) {
      if (!fits(pattern, parts)) continue;
      if (pattern.route.method === wanted)
        return { kind: 'route', route: pattern.route, params: paramsOf(pattern, parts) };
      if (pattern.route.method === 'GET') allow.push('HEAD');
      allow.push(pattern.route.method);
    }
    return allow.length === 0 ? NONE : { kind: 'method', allow: [...new Set(allow)].join(', ') };
  };
}

function fits(pattern: Pattern, parts: readonly string[]): boolean {
  if (pattern.segments.length !== parts.length) return false;
  return pattern.segments.every((literal, index) => {
    const part = parts[index] as string;
    return literal === undefined ? part !== '' : literal === part.toLowerCase();
  });
}

function paramsOf(pattern: Pattern, parts: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [index, name] of pattern.names.entries()) {
    if (name !== undefined) params[name] = decoded(parts[index] as string);
  }
  return params;
}

function decoded(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
