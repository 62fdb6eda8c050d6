import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../test/foundation.test-support.js';
import { type OpenDatabase, openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
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
    for (let i = 0; i < 30; i += 1) {
      await limiter.check(`user${i}`, '10.0.0.1');
      await limiter.recordFailure(`user${i}`, '10.0.0.1');
    }
    await expect(limiter.check('alice', '10.0.0.1')).rejects.toMatchObject({ code: 'rate_limited' });
    await expect(limiter.check('alice', '10.0.0.2')).resolves.toBeUndefined();
  });

  it('counts per username and address; a success clears that pair; the window slides', async () => {
    const clock = createManualClock();
    const limiter = createLoginRateLimiter({ db: database.db, clock });
    for (let i = 0; i < 4; i += 1) await limiter.recordFailure('Alice', '10.0.0.1');
    await expect(limiter.check('alice', '10.0.0.1')).resolves.toBeUndefined();
    await limiter.recordSuccess('alice', '10.0.0.1');
    for (let i = 0; i < 5; i += 1) {
      clock.advance(60_000);
      await limiter.recordFailure('alice', '10.0.0.1');
    }
    const error = await limiter.check('alice', '10.0.0.1').catch((caught: unknown) => caught);
    // The oldest of the five failures leaves the 15-minute window 11 minutes from now.
    expect(error).toMatchObject({ code: 'rate_limited', details: { retryAfterS: 11 * 60 } });
    await expect(limiter.check('bob', '10.0.0.1')).resolves.toBeUndefined();
    clock.advance(11 * 60 * 1000);
    await expect(limiter.check('alice', '10.0.0.1')).resolves.toBeUndefined();
  });
});
