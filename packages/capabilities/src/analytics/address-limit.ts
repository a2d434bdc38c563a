/** Addresses counted at most per minute; past it the minute's counts start over (see below). */
const MAX_ADDRESSES = 100_000;

/**
 * Events per client address and minute, counted in this process (a fixed one-minute window): a batch
 * of 100 events costs 100, so a sender cannot multiply its share by batching. Ingestion does not use
 * the gateway's shared (Redis) limiter: that would put a Redis round trip on every page view, and this
 * limit only keeps one sender from flooding a process — with several gateway processes a sender gets
 * the limit once per process. The address is held in memory for the current minute only, never written
 * anywhere.
 */
export class AddressLimit {
  #minute = -1;
  #counts = new Map<string, number>();

  constructor(private readonly perMinute: number) {}

  /**
   * Counts `events` more events of `address` (refused ones too: a sender past its limit keeps costing
   * the parse); the seconds to wait when the address is over its limit, else 0.
   */
  take(address: string, now: number, events: number): number {
    const minute = Math.floor(now / 60_000);
    if (minute !== this.#minute || this.#counts.size >= MAX_ADDRESSES) {
      this.#minute = minute;
      this.#counts = new Map();
    }
    const count = (this.#counts.get(address) ?? 0) + events;
    this.#counts.set(address, count);
    return count > this.perMinute ? Math.max(1, Math.ceil(((minute + 1) * 60_000 - now) / 1000)) : 0;
  }
}
