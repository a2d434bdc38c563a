import { Redis } from 'ioredis';
import type { Logger } from './logger.js';

/** The longest a request waits on one Redis command (rate limits, invalidation) before falling back. */
export const REDIS_COMMAND_TIMEOUT_MS = 500;

/**
 * Creates the Redis client for REDIS_URL. It connects in the background and keeps retrying with a
 * bounded back-off; commands fail fast while it is down (no offline queue) and time out after
 * {@link REDIS_COMMAND_TIMEOUT_MS} when it hangs, so a dead Redis degrades /health and switches rate
 * limits to their in-process insurance instead of hanging requests or crashing the process.
 */
export function createRedis(url: string, logger: Logger, keyPrefix = ''): Redis {
  const redis = new Redis(url, {
    // ioredis puts it before every key (Lua scripts' KEYS included); channel names get it in state-cache.ts.
    keyPrefix,
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    // Commands issued in the same tick (the two rate-limit buckets of an invoke) share one write.
    enableAutoPipelining: true,
    enableOfflineQueue: false,
    retryStrategy: (attempt) => Math.min(attempt * 250, 5000),
  });
  let lastError: string | undefined;
  redis.on('error', (error: Error) => {
    // ioredis emits an error per failed reconnect; log each distinct failure once.
    if (error.message === lastError) return;
    lastError = error.message;
    logger.warn({ err: error }, 'redis connection error');
  });
  redis.on('ready', () => {
    lastError = undefined;
    logger.info('redis connected');
  });
  redis.connect().catch(() => {
    // The 'error' listener above already logged it; the retry strategy keeps trying.
  });
  return redis;
}

/** Closes the client without waiting for a server that may be gone. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') {
    await redis.quit().catch(() => redis.disconnect());
  } else {
    redis.disconnect();
  }
}

/**
 * Waits until the first connection attempt settles (ready, failed, or `timeoutMs`), so a healthy Redis
 * is usable by the first request; a dead one does not delay the start beyond that attempt.
 */
export function firstConnection(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('error', onError);
      resolve(ready);
    };
    const onReady = () => done(true);
    const onError = () => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.once('ready', onReady);
    redis.once('error', onError);
  });
}
