import type { Clock, RateLimiter } from '../ports.js';

/**
 * Creates an in-process fixed-window rate limiter: a window starts at a bucket's first hit. Like
 * rate-limiter-flexible's, up to twice the limit can pass across a window edge.
 */
export function createMemoryRateLimiter(options: { readonly clock: Clock }): RateLimiter {
  const buckets = new Map<string, { windowEndsAt: number; used: number }>();
  return {
    consume({ key, limit, windowSeconds, cost }) {
      const now = options.clock.now().getTime();
      let bucket = buckets.get(key);
      if (bucket === undefined || bucket.windowEndsAt <= now) {
        bucket = { windowEndsAt: now + windowSeconds * 1000, used: 0 };
        buckets.set(key, bucket);
      }
      const resetSeconds = Math.max(1, Math.ceil((bucket.windowEndsAt - now) / 1000));
      const allowed = bucket.used + cost <= limit;
      if (allowed) bucket.used += cost;
      return {
        allowed,
        limit,
        remaining: Math.max(0, limit - bucket.used),
        retryAfterSeconds: allowed ? 0 : resetSeconds,
        resetSeconds,
      };
    },
  };
}
