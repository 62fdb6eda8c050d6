import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../test/foundation.test-support.js';
import { type OpenDatabase, openDatabase } from '../../platform/db/database.js';
import { migrateToLatest } from '../../platform/db/migrate.js';
import { createLoginRateLimiter } from './auth-rate-limit.js';

let database: OpenDatabase;
beforeEach(async () => {
  database = openDatabase(':memory:');
  await migrateToLatest(database.db);
});
afterEach(async () => {
  await database.close();
});

describe('login rate limiter', () => {
  it('caps one address across many usernames, and keeps users on other addresses free', async () => {
    const clock = createManualClock();
    const limiter = createLoginRateLimiter({ db: database.db, clock });
    for (let i = 0; i < 30; i += 1) await limiter.attempt(`user${i}`, '10.0.0.1');
    await expect(limiter.attempt('alice', '10.0.0.1')).rejects.toMatchObject({ code: 'rate_limited' });
    await expect(limiter.attempt('alice', '10.0.0.2')).resolves.toBeDefined();
  });

  it('counts per username and address; a success starts that pair over; the window reopens', async () => {
    const clock = createManualClock();
    const limiter = createLoginRateLimiter({ db: database.db, clock });
    for (let i = 0; i < 4; i += 1) await limiter.attempt('Alice', '10.0.0.1');
    const fifth = await limiter.attempt('alice', '10.0.0.1');
    await fifth.succeeded();
    for (let i = 0; i < 5; i += 1) {
      clock.advance(60_000);
      await limiter.attempt('alice', '10.0.0.1');
    }
    clock.advance(60_000);
    const error = await limiter.attempt('alice', '10.0.0.1').catch((caught: unknown) => caught);
    // The window began with the first attempt after the success, 5 minutes ago: it reopens in 10 minutes.
    expect(error).toMatchObject({ code: 'rate_limited', details: { retryAfterS: 10 * 60 } });
    await expect(limiter.attempt('bob', '10.0.0.1')).resolves.toBeDefined();
    clock.advance(10 * 60 * 1000);
    await expect(limiter.attempt('alice', '10.0.0.1')).resolves.toBeDefined();
  });

  it('holds under concurrency: of 25 attempts started at once exactly 5 get through', async () => {
    const clock = createManualClock();
    const limiter = createLoginRateLimiter({ db: database.db, clock });
    const results = await Promise.allSettled(
      Array.from({ length: 25 }, () => limiter.attempt('alice', '10.0.0.9')),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(5);
    for (const result of results.filter((r) => r.status === 'rejected')) {
      expect((result as PromiseRejectedResult).reason).toMatchObject({ code: 'rate_limited' });
    }
  });

  it('caps one username across many addresses, concurrently, and leaves other usernames free', async () => {
    const clock = createManualClock();
    const limiter = createLoginRateLimiter({ db: database.db, clock });
    // 30 guesses at once, each from its own address (a botnet, or forged X-Forwarded-For through a trusted proxy).
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => limiter.attempt('Alice', `10.1.0.${i + 1}`)),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(20);
    await expect(limiter.attempt('alice', '10.1.1.1')).rejects.toMatchObject({ code: 'rate_limited' });
    await expect(limiter.attempt('bob', '10.1.0.1')).resolves.toBeDefined();
    clock.advance(15 * 60 * 1000);
    await expect(limiter.attempt('alice', '10.1.1.1')).resolves.toBeDefined();
  });

  it('a successful attempt does not count against the username across addresses', async () => {
    const clock = createManualClock();
    const limiter = createLoginRateLimiter({ db: database.db, clock, maxPerUsername: 3 });
    for (let i = 0; i < 10; i += 1) await (await limiter.attempt('alice', `10.2.0.${i + 1}`)).succeeded();
    await expect(limiter.attempt('alice', '10.2.1.1')).resolves.toBeDefined();
  });

  it('a successful attempt does not count against the address', async () => {
    const clock = createManualClock();
    const limiter = createLoginRateLimiter({ db: database.db, clock, maxPerAddress: 3 });
    for (let i = 0; i < 10; i += 1) await (await limiter.attempt(`user${i}`, '10.0.0.3')).succeeded();
    await expect(limiter.attempt('alice', '10.0.0.3')).resolves.toBeDefined();
  });
});
