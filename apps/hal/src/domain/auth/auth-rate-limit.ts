import { HalError } from '@hal-ai/spec';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../platform/db/schema.js';

/** Settings of {@link createLoginRateLimiter}. */
export interface LoginRateLimitSettings {
  db: Kysely<Database>;
  clock: { now(): number };
  /** Attempts allowed per username + address within the window (default 5). */
  maxPerUser?: number;
  /** Attempts allowed per address within the window, across usernames (default 30). */
  maxPerAddress?: number;
  /**
   * Attempts allowed per username within the window, across addresses (default 20): what stops guesses spread over
   * many addresses (a botnet, or forged `X-Forwarded-For` through a trusted proxy). Higher than `maxPerUser`, so
   * that one mistyping operator meets their own address's limit first; the price is that a distributed guesser can
   * hold one username's logins shut for a window, which the audit and the 429s show (docs/decisions.md).
   */
  maxPerUsername?: number;
  /** The window, ms (default 15 minutes), counted from the first attempt after the last reset. */
  windowMs?: number;
}

/** One password check let through by {@link LoginRateLimiter.attempt}. */
export interface LoginAttempt {
  /**
   * The password was right: the attempt stops counting against the address and the username, and the
   * username + address count starts over. A wrong password needs no call — it was counted when the attempt began.
   */
  succeeded(): Promise<void>;
}

/**
 * Login and re-auth throttling. Every attempt is counted **before** the password is checked, by one atomic
 * upsert per counter, so concurrent guesses cannot all pass a check that none of them has bumped yet. The
 * counters are rows in `login_counters`, not memory: a restart does not reset them and several HAL
 * processes on one database share them.
 */
export interface LoginRateLimiter {
  /**
   * Counts one attempt for the username + address, for the username alone and for the address.
   * @throws HalError `429 rate_limited` (details `retryAfterS`) when any count is past its limit.
   */
  attempt(username: string, address: string): Promise<LoginAttempt>;
}

const userKey = (username: string, address: string) => `user:${username.toLowerCase()}|ip:${address}`;
const addressKey = (address: string) => `ip:${address}`;
const usernameKey = (username: string) => `name:${username.toLowerCase()}`;

/** Creates the login rate limiter. */
export function createLoginRateLimiter(settings: LoginRateLimitSettings): LoginRateLimiter {
  const { db, clock } = settings;
  const maxPerUser = settings.maxPerUser ?? 5;
  const maxPerAddress = settings.maxPerAddress ?? 30;
  const maxPerUsername = settings.maxPerUsername ?? 20;
  const windowMs = settings.windowMs ?? 15 * 60 * 1000;

  /** Bumps one counter in one statement (a fresh window when the old one ended) and returns it. */
  async function bump(key: string, now: number): Promise<{ count: number; windowStart: number }> {
    const expired = now - windowMs;
    const { rows } = await sql<{ count: number; window_start: number }>`
      INSERT INTO login_counters (key, window_start, count) VALUES (${key}, ${now}, 1)
      ON CONFLICT (key) DO UPDATE SET
        count = CASE WHEN login_counters.window_start <= ${expired} THEN 1 ELSE login_counters.count + 1 END,
        window_start = CASE WHEN login_counters.window_start <= ${expired} THEN ${now}
                            ELSE login_counters.window_start END
      RETURNING count, window_start`.execute(db);
    const row = rows[0];
    if (row === undefined) throw new HalError('internal_error', 'rate limit counter not written');
    return { count: Number(row.count), windowStart: Number(row.window_start) };
  }

  return {
    async attempt(username, address) {
      const now = clock.now();
      const user = await bump(userKey(username, address), now);
      const name = await bump(usernameKey(username), now);
      const site = await bump(addressKey(address), now);
      const over = [
        user.count > maxPerUser ? user.windowStart : null,
        name.count > maxPerUsername ? name.windowStart : null,
        site.count > maxPerAddress ? site.windowStart : null,
      ].filter((start): start is number => start !== null);
      if (over.length > 0) {
        const reopens = Math.max(...over) + windowMs;
        throw new HalError('rate_limited', 'Too many failed attempts; try again later', {
          details: { retryAfterS: Math.max(1, Math.ceil((reopens - now) / 1000)) },
        });
      }
      // Counters of ended windows are useless; pruning on the way keeps the table small without a timer.
      await db
        .deleteFrom('login_counters')
        .where('window_start', '<=', now - windowMs)
        .execute();
      return {
        async succeeded() {
          await db.deleteFrom('login_counters').where('key', '=', userKey(username, address)).execute();
          // The right password takes back its own count, and no more: a guesser elsewhere keeps theirs.
          await db
            .updateTable('login_counters')
            .set({ count: sql`CASE WHEN count > 0 THEN count - 1 ELSE 0 END` })
            .where('key', 'in', [addressKey(address), usernameKey(username)])
            .execute();
        },
      };
    },
  };
}
