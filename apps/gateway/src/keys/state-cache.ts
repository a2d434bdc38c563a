import { randomUUID } from 'node:crypto';
import type {
  InstallationState,
  InstallationStore,
  KeyRecord,
  KeyStore,
  KillSwitchState,
  KillSwitchStore,
  MaybePromise,
} from '@agw/guard';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import { knexTransactionEnded } from '../db/knex-transaction.js';
import type { Logger } from '../logger.js';

/** The Redis channel every instance listens on; a message drops that instance's whole cache. */
const ACCESS_STATE_CHANNEL = 'agw:access-state:invalidate';

/** The channel with the client's key prefix: ioredis prefixes keys but never channel names. */
function accessStateChannel(redis: Redis): string {
  return `${redis.options.keyPrefix ?? ''}${ACCESS_STATE_CHANNEL}`;
}

// Each subscriber acknowledges a drop by pushing to this list (suffixed with the message id), so the
// publisher knows every instance has dropped before its response leaves.
const ACK_LIST_PREFIX = 'agw:access-state:ack:';
// How long a publisher waits for the acknowledgements; an instance that has not answered by then is on
// its TTL (or, with its subscription down, caches nothing at all).
const ACK_WAIT_MS = 250;
// An instance trusts its cache only this long after sending the last PING its subscriber connection
// answered. The PONG comes after every message Redis handled before the PING, so within the lease the
// instance has dropped for every invalidation published before it began. A hung Redis (socket open, no
// replies) ends every lease within this time; a publisher whose acknowledgements are missing waits it out.
const SUBSCRIPTION_LEASE_MS = 1000;
const HEARTBEAT_MS = 250;

/** Options of {@link createAccessStateCache}. */
export interface AccessStateCacheOptions {
  /** The knex instance whose state changes invalidate this cache (see {@link accessStateChanged}). */
  readonly knex: Knex;
  /** Invalidation reaches every instance on this Redis when set; only this process otherwise. */
  readonly redis?: Redis | undefined;
  readonly logger?: Logger;
  /** Safety net: an entry is re-read after this long even without an invalidation. Default 10 s. */
  readonly ttlMs?: number;
  /** At most this many entries per map (least recently used dropped first). Default 10 000. */
  readonly maxEntries?: number;
}

/** The invoke chain's KeyStore, InstallationStore and KillSwitchStore with an in-process LRU/TTL cache in front. */
export interface AccessStateCache {
  wrapKeys(store: KeyStore): KeyStore;
  wrapInstallations(store: InstallationStore): InstallationStore;
  wrapKillSwitch(store: KillSwitchStore): KillSwitchStore;
  /** Drops every entry here and, through Redis, on every other instance (resolves once published). */
  invalidate(): Promise<void>;
}

// The caches of each database (named by its knex instance), for accessStateChanged.
const cachesByDatabase = new WeakMap<Knex, Set<AccessStateCache>>();

// Invalidations not yet published (or whose transaction has not ended yet).
const pending = new Set<Promise<void>>();

/**
 * Reports that a key, an installation, an organization or a kill switch changed through `db`. Inside a transaction the
 * caches are dropped after it commits (a drop before the commit could let another request re-cache the
 * old row) and not at all if it rolls back; on a plain knex immediately. Call it wherever such a change
 * is written; {@link accessStateSettled} holds the response until the drop is published.
 */
export function accessStateChanged(db: Knex | Knex.Transaction): void {
  // A transaction must come from knexTransaction (src/db/knex-transaction.ts), which tells its end.
  const { knex, committed } = db.isTransaction
    ? knexTransactionEnded(db as Knex.Transaction)
    : { knex: db, committed: Promise.resolve(true) };
  const caches = cachesByDatabase.get(knex);
  if (caches === undefined) return;
  const drop = async (didCommit: boolean) => {
    if (didCommit) await Promise.all([...caches].map((cache) => cache.invalidate()));
  };
  const done: Promise<void> = committed.then(drop).finally(() => pending.delete(done));
  pending.add(done);
}

/**
 * Koa middleware: a response that changed access state leaves only once every instance was told (the
 * Redis PUBLISH is acknowledged after delivery to the subscribers), so the caller's next request to
 * any instance sees the change. Bounded by the Redis command timeout; free when nothing changed.
 */
export function accessStateSettled() {
  return async (_ctx: unknown, next: () => Promise<unknown>): Promise<void> => {
    await next();
    if (pending.size > 0) await Promise.all(pending);
  };
}

/**
 * Creates the cache of key records, installation state and kill switches read on every invoke. Only
 * what lets a request through is cached: live keys, ready installations and a kill switch that is off
 * (misses, revoked keys, pending, blocked or inactive states and a switch that is on are read every
 * time, so a new key or an approval works at once). Entries are dropped on every access-state change
 * (after commit), everywhere when Redis is configured; the TTL only bounds staleness if a message is lost.
 * With Redis, the cache is trusted only while the subscriber connection answers its heartbeat (see
 * SUBSCRIPTION_LEASE_MS), so a dead or hung Redis turns caching off within a second.
 * While the Redis subscription is not live, nothing is cached (every request reads PostgreSQL), so a
 * Redis outage costs speed, never correctness; on resubscribing the cache starts empty.
 */
export function createAccessStateCache(options: AccessStateCacheOptions): AccessStateCache {
  const ttlMs = options.ttlMs ?? 10_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const lru = <T extends {}>() => new LRUCache<string, T>({ max: maxEntries, ttl: ttlMs });
  const keys = lru<KeyRecord>();
  const installations = lru<InstallationState>();
  const killSwitches = lru<KillSwitchState>();
  // Bumped by every drop: a read that started before it must not store what it read.
  let generation = 0;
  const dropLocal = () => {
    generation += 1;
    keys.clear();
    installations.clear();
    killSwitches.clear();
  };

  const { redis } = options;
  // Without Redis this process is the only instance: its own drops are all there is.
  let leaseUntil = redis === undefined ? Number.POSITIVE_INFINITY : 0;
  const live = () => Date.now() < leaseUntil;
  if (redis !== undefined) {
    const subscriber = redis.duplicate();
    let subscribed = false;
    let pinging = false;
    const renew = (sentAt: number) => {
      if (subscribed) leaseUntil = Math.max(leaseUntil, sentAt + SUBSCRIPTION_LEASE_MS);
    };
    subscriber.on('error', () => {
      // The main client logs Redis errors; while this one is down nothing is cached.
    });
    subscriber.on('ready', () => {
      const sentAt = Date.now();
      subscriber.subscribe(accessStateChannel(subscriber)).then(
        () => {
          dropLocal();
          subscribed = true;
          renew(sentAt);
        },
        () => undefined,
      );
    });
    subscriber.on('close', () => {
      subscribed = false;
      leaseUntil = 0;
      dropLocal();
    });
    const heartbeat = setInterval(() => {
      if (!subscribed || pinging) return;
      pinging = true;
      const sentAt = Date.now();
      subscriber
        .ping()
        .then(
          () => renew(sentAt),
          () => undefined,
        )
        .finally(() => {
          pinging = false;
        });
    }, HEARTBEAT_MS);
    heartbeat.unref();
    subscriber.on('message', (_channel: string, id: string) => {
      dropLocal();
      const ackList = `${ACK_LIST_PREFIX}${id}`;
      redis
        .multi()
        .rpush(ackList, '1')
        .pexpire(ackList, ACK_WAIT_MS * 4)
        .exec()
        .catch(() => undefined);
    });
    subscriber.connect().catch(() => undefined);
    // The subscriber lives as long as the main client (closed by the server's shutdown).
    redis.once('end', () => {
      clearInterval(heartbeat);
      subscriber.disconnect();
    });
  }

  const cached = <T extends {}>(
    map: LRUCache<string, T>,
    id: string,
    load: () => Promise<T | undefined>,
    keep: (value: T) => boolean,
  ) => {
    if (live()) {
      // lru-cache answers no expired entry (it drops it here) and marks a hit most recently used.
      const hit = map.get(id);
      if (hit !== undefined) return hit;
    } else map.delete(id);
    const started = generation;
    return load().then((value) => {
      if (value !== undefined && keep(value) && live() && started === generation) map.set(id, value);
      return value;
    });
  };

  const cache: AccessStateCache = {
    wrapKeys: (store) => ({
      findByPrefix: (prefix) =>
        cached(
          keys,
          prefix,
          async () => store.findByPrefix(prefix),
          (key) => key.revoked_at === null,
        ),
    }),
    wrapInstallations: (store) => ({
      getState: (id) => cached(installations, id, async () => store.getState(id), isReady),
    }),
    wrapKillSwitch: (store) => ({
      // Only "off" is cached: turning the switch off works at once, turning it on drops the caches.
      getKillSwitch: (id) =>
        cached(
          killSwitches,
          id,
          async () => store.getKillSwitch(id),
          (state) => !state.enabled,
        ) as MaybePromise<KillSwitchState>,
    }),
    async invalidate() {
      dropLocal();
      if (redis === undefined) return;
      // Not every instance confirmed (Redis down or hung, an instance stalled): by the end of one lease
      // each of them has either dropped or stopped trusting its cache, so the change's response waits.
      await publishAndAwaitAcks(redis).catch(async (error: unknown) => {
        options.logger?.warn({ err: error }, 'access-state invalidation not confirmed by every instance');
        await new Promise((resolve) => setTimeout(resolve, SUBSCRIPTION_LEASE_MS));
      });
    },
  };
  let registered = cachesByDatabase.get(options.knex);
  if (registered === undefined) {
    registered = new Set();
    cachesByDatabase.set(options.knex, registered);
  }
  registered.add(cache);
  return cache;
}

/**
 * Publishes a drop and waits (at most {@link ACK_WAIT_MS}) until every subscriber that received it has
 * acknowledged it. PUBLISH only says the message was written to the subscribers' sockets; an instance
 * may still serve a request from its cache before it reads the message. The acknowledgement is pushed
 * after the drop, so once all are in, no instance answers from the old state.
 */
async function publishAndAwaitAcks(redis: Redis): Promise<void> {
  const id = randomUUID();
  const receivers = await redis.publish(accessStateChannel(redis), id);
  const ackList = `${ACK_LIST_PREFIX}${id}`;
  const deadline = Date.now() + ACK_WAIT_MS;
  while ((await redis.llen(ackList)) < receivers) {
    if (Date.now() >= deadline)
      throw new Error(`${receivers} instances were told, not all confirmed in time`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Approved, owner verified, agent mailbox verified when set, organization active: invokes pass. */
function isReady(state: InstallationState): boolean {
  return (
    state.operator_approval_status === 'approved' &&
    state.organization_is_active &&
    state.owner_verified_at !== null &&
    (state.agent_email === null || state.agent_email_verified_at !== null)
  );
}
