import { createHash, randomBytes } from 'node:crypto';
import type { SqlDatabase } from '../sql.js';
import { runStatement } from '../sql.js';
import { selectSalt, upsertSalt } from './sql.js';

/**
 * Visitor ids without cookies and without keeping an address: sha256 of the day's random salt, the
 * property, the client address, the user agent and the local day (in the property's time zone) of the
 * event, cut to 16 bytes. With the local day in it, one id never spans two days of the property, so
 * the daily rollups' distinct visitors add up exactly. The salt is shared by every
 * gateway process through the database (the first to ask makes it) and deleted the day after, so an
 * id cannot be recomputed later and a visitor is not followed across days.
 */
export class VisitorIds {
  #day = '';
  #salt: Promise<string> | undefined;
  /** The day's salt once read: the usual case answers without a promise (a page view is hot). */
  #ready: string | undefined;

  constructor(private readonly sql: SqlDatabase) {}

  /** The salt of `now`'s UTC day when it is already known, else undefined (then await {@link salt}). */
  readySalt(now: Date): string | undefined {
    return this.#day === utcDay(now) ? this.#ready : undefined;
  }

  /** The salt of `now`'s UTC day, read (or made) once per day and process. */
  salt(now: Date): Promise<string> {
    return this.#saltOf(utcDay(now));
  }

  /** The visitor id under `salt` (from {@link readySalt} or {@link salt}). */
  id(salt: string, propertyId: string, address: string, userAgent: string, eventDay: string): string {
    return createHash('sha256')
      .update(`${salt}\u0000${propertyId}\u0000${address}\u0000${userAgent}\u0000${eventDay}`)
      .digest('hex')
      .slice(0, 32);
  }

  #saltOf(day: string): Promise<string> {
    if (day !== this.#day || this.#salt === undefined) {
      this.#day = day;
      this.#ready = undefined;
      const salt = (async () => {
        await runStatement(this.sql, upsertSalt, [day, randomBytes(32).toString('hex')]);
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

function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}
