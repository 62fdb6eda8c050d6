import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../foundation.test-support.js';
import { createTally, recordFigures } from './hostile-figures.test-support.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A burst of concurrent logins for `alice`; `right` is the index that carries the real password (or none). */
async function burst(app: TestApp, size: number, right?: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: size }, (_, index) =>
      app
        .request('/ops/login', {
          method: 'POST',
          json: {
            username: 'alice',
            password: index === right ? app.password : randomBytes(12).toString('base64url'),
          },
        })
        .then((response) => response.status),
    ),
  );
}

describe('hostile: login limits under concurrency', () => {
  it('25 concurrent wrong passwords: exactly 5 are checked (401), the other 20 answer 429', async (context) => {
    t = await createTestApp();
    const statuses = await burst(t, 25);
    const { tally, check } = createTally();
    // Five wrong passwords are allowed to be answered 401; every guess beyond them must be limited.
    statuses.forEach((status, index) => {
      check(status === 401 || status === 429, `guess ${index}: ${status}`);
    });
    recordFigures(context, 'login limits under concurrency', tally);
    expect(tally.misses).toEqual([]);
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
  });

  it('21 concurrent guesses with the real password 14th: no 200, no session', async (context) => {
    t = await createTestApp();
    const statuses = await burst(t, 21, 13);
    const { tally, check } = createTally();
    statuses.forEach((status, index) => {
      check(status !== 200, `guess ${index}: ${status}`);
    });
    const sessions = await t.deps.db.selectFrom('sessions').selectAll().execute();
    recordFigures(context, 'login limits under concurrency', { ...tally, badExecutions: sessions.length });
    expect(tally.misses).toEqual([]);
    expect(sessions).toHaveLength(0);
  });
});
