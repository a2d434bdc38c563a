import type { RateLimiter, RateLimitRequest, RateLimitResult } from '@agw/guard';
import type { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import type { Logger } from '../logger.js';

/** Options of {@link createGatewayRateLimiter}. */
export interface GatewayRateLimiterOptions {
  /** Shared buckets when set; in-process buckets otherwise. */
  readonly redis?: Redis | undefined;
  readonly logger?: Logger;
}

/** Redis key prefix of every bucket (the guard's keys already carry organization and installation). */
const KEY_PREFIX = 'agw';

/**
 * The guard's RateLimiter port over rate-limiter-flexible: fixed windows started by a bucket's first
 * hit (so up to twice the limit can pass across a window edge), one limiter per (limit, window) pair.
 *
 * With Redis the buckets are shared by every gateway instance (atomic MULTI in Redis). When Redis is
 * not ready or a command fails (the client fails fast: no offline queue, bounded command timeout, see
 * redis.ts), the insurance limiter takes over: the same buckets in this process, so ordinary traffic
 * stays limited (each instance up to the full limit, N instances up to N×) and never waits on Redis.
 * Buckets counted in process during an outage are not copied back; Redis resumes its own counts.
 */
export function createGatewayRateLimiter(options: GatewayRateLimiterOptions = {}): RateLimiter {
  const limiters = new Map<string, RateLimiterAbstract>();
  let degraded = false;
  const limiterFor = (limit: number, windowSeconds: number): RateLimiterAbstract => {
    const id = `${limit}/${windowSeconds}`;
    let limiter = limiters.get(id);
    if (limiter === undefined) {
      const memory = new RateLimiterMemory({ points: limit, duration: windowSeconds, keyPrefix: KEY_PREFIX });
      limiter =
        options.redis === undefined
          ? memory
          : new RateLimiterRedis({
              storeClient: options.redis,
              points: limit,
              duration: windowSeconds,
              keyPrefix: KEY_PREFIX,
              rejectIfRedisNotReady: true,
              insuranceLimiter: memory,
            });
      limiters.set(id, limiter);
    }
    return limiter;
  };
  if (options.redis !== undefined) {
    // Log the switch to and from the insurance limiter once, not per request.
    options.redis.on('ready', () => {
      degraded = false;
    });
    options.redis.on('close', () => {
      if (degraded) return;
      degraded = true;
      options.logger?.warn('redis unavailable: rate limits fall back to in-process buckets');
    });
  }
  return {
    async consume(request: RateLimitRequest): Promise<RateLimitResult> {
      const { key, limit, windowSeconds, cost } = request;
      try {
        const res = await limiterFor(limit, windowSeconds).consume(key, cost);
        return toResult(res, limit, true);
      } catch (thrown) {
        if (thrown instanceof RateLimiterRes) return toResult(thrown, limit, false);
        throw thrown;
      }
    },
  };
}

function toResult(res: RateLimiterRes, limit: number, allowed: boolean): RateLimitResult {
  const resetSeconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return {
    allowed,
    limit,
    remaining: Math.max(0, res.remainingPoints),
    retryAfterSeconds: allowed ? 0 : resetSeconds,
    resetSeconds,
  };
}
