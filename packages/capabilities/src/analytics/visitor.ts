// A namespace import: a named import of `hash` would fail to link on a Node 20 before 20.12.
import * as crypto from 'node:crypto';
import type { SqlDatabase } from '../sql.js';
import { runStatement } from '../sql.js';
import { selectSalt, upsertSalt } from './sql.js';

/**
 * sha256 as hex in one call: without a Hash object per page view it costs about half (0.8 against 1.8 µs).
 * `crypto.hash` exists since Node 20.12; the engines field allows any 20.
 */
const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text).digest('hex');
const DAY_MS = 86_400_000;

/**
 * Visitor ids without cookies and without keeping an address: sha256 of the day's random salt, the
 * property, the client address, the user agent and the local day (in the property's time zone) of the
 * event, cut to 16 bytes. With the local day in it, one id never spans two days of the property, so
 * the daily rollups' distinct visitors add up exactly. The salt is shared by every
 * gateway process through the database (the first to ask makes it) and deleted the day after, so an
 * id cannot be recomputed later and a visitor is not followed across days.
 */
export class VisitorIds {
  /** The UTC day (days since 1970) of the salt held or being read; a number, so the hot check makes no string. */
  #dayNumber = -1;
  #salt: Promise<string> | undefined;
  /** The day's salt once read: the usual case answers without a promise (a page view is hot). */
  #ready: string | undefined;

  constructor(private readonly sql: SqlDatabase) {}

  /** The salt of `now`'s UTC day when it is already known, else undefined (then await {@link salt}). */
  readySalt(now: Date): string | undefined {
    return this.#dayNumber === Math.floor(now.getTime() / DAY_MS) ? this.#ready : undefined;
  }

  /** The salt of `now`'s UTC day, read (or made) once per day and process. */
  salt(now: Date): Promise<string> {
    return this.#saltOf(Math.floor(now.getTime() / DAY_MS));
  }

  /** The visitor id under `salt` (from {@link readySalt} or {@link salt}). */
  id(salt: string, propertyId: string, address: string, userAgent: string, eventDay: string): string {
    return sha256Hex(`${salt}\u0000${propertyId}\u0000${address}\u0000${userAgent}\u0000${eventDay}`).slice(
      0,
      32,
    );
  }

  #saltOf(dayNumber: number): Promise<string> {
    if (dayNumber !== this.#dayNumber || this.#salt === undefined) {
      this.#dayNumber = dayNumber;
      this.#ready = undefined;
      const day = new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
      const salt = (async () => {
        await runStatement(this.sql, upsertSalt, [day, crypto.randomBytes(32).toString('hex')]);
        const { rows } = await runStatement<{ salt: string }>(this.sql, selectSalt, [day]);
        return (rows[0] as { salt: string }).salt;
      })();
      this.#salt = salt;
      salt.then(
        (value) => {
          if (this.#salt === salt) this.#ready = value;
        },
        // A failed read is retried by the next event, not remembered.
        () => {
          if (this.#salt === salt) this.#salt = undefined;
        },
      );
    }
    return this.#salt;
  }
}
