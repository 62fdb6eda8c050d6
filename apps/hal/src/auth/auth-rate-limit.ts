import { HalError } from '@hal-ai/spec';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** Settings of {@link createLoginRateLimiter}. */
export interface LoginRateLimitSettings {
  db: Kysely<Database>;
  clock: { now(): number };
  /** Failures allowed per username + address within the window (default 5). */
  maxPerUser?: number;
  /** Failures allowed per address within the window, across usernames (default 30). */
  maxPerAddress?: number;
  /** The sliding window, ms (default 15 minutes). */
  windowMs?: number;
}

/**
 * Login and re-auth throttling. Failures are rows in `login_attempts` rather than memory so a
 * restart does not reset the count and several HAL processes on one database share it.
 */
export interface LoginRateLimiter {
  /** Throws `429 rate_limited` (details `retryAfterS`) when either limit is used up. */
  check(username: string, address: string): Promise<void>;
  /** Records a failed password check. */
  recordFailure(username: string, address: string): Promise<void>;
  /** Clears the username + address failures after a success (the per-address count stays). */
  recordSuccess(username: string, address: string): Promise<void>;
}

const userKey = (username: string, address: string) => `user:${username.toLowerCase()}|ip:${address}`;
const addressKey = (address: string) => `ip:${address}`;

/** Creates the login rate limiter. */
export function createLoginRateLimiter(settings: LoginRateLimitSettings): LoginRateLimiter {
  const { db, clock } = settings;
  const maxPerUser = settings.maxPerUser ?? 5;
  const maxPerAddress = settings.maxPerAddress ?? 30;
  const windowMs = settings.windowMs ?? 15 * 60 * 1000;

  async function retryAfter(key: string, max: number, now: number): Promise<number | null> {
    const rows = await db
      .selectFrom('login_attempts')
      .select('at')
      .where('key', '=', key)
      .where('at', '>', now - windowMs)
      .orderBy('at', 'desc')
      .limit(max)
      .execute();
    if (rows.length < max) return null;
    // The window reopens when the max-th most recent failure falls out of it.
    const oldest = rows[rows.length - 1]?.at ?? now;
    return Math.max(1, Math.ceil((oldest + windowMs - now) / 1000));
  }

  return {
    async check(username, address) {
      const now = clock.now();
      const wait =
        (await retryAfter(userKey(username, address), maxPerUser, now)) ??
        (await retryAfter(addressKey(address), maxPerAddress, now));
      if (wait !== null) {
        throw new HalError('rate_limited', 'Too many failed attempts; try again later', {
          details: { retryAfterS: wait },
        });
      }
    },
    async recordFailure(username, address) {
      const now = clock.now();
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('login_attempts')
          .values([
            { key: userKey(username, address), at: now },
            { key: addressKey(address), at: now },
          ])
          .execute();
        // Old rows are useless; pruning on write keeps the table small without a timer.
        await trx
          .deleteFrom('login_attempts')
          .where('at', '<=', now - windowMs)
          .execute();
      });
    },
    async recordSuccess(username, address) {
      await db.deleteFrom('login_attempts').where('key', '=', userKey(username, address)).execute();
    },
  };
}
