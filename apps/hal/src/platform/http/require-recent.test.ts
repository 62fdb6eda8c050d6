import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, sessionCookieFrom, type TestApp } from '../../../test/foundation.test-support.js';
import { requireRecent } from './require-recent.js';

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

async function appWithSensitiveRoute(config = {}) {
  const test = await createTestApp({ config });
  test.app.post('/ops/api/test/sensitive', requireRecent(test.deps), (c) => c.json({ ok: true }));
  return test;
}

describe('requireRecent', () => {
  it('passes 599 s after login and answers 401 reauth_required at 601 s', async () => {
    t = await appWithSensitiveRoute();
    const session = await t.login();
    t.clock.advance(599_000);
    expect((await t.request('/ops/api/test/sensitive', { method: 'POST', session })).status).toBe(200);
    t.clock.advance(2_000);
    const refused = await t.request('/ops/api/test/sensitive', { method: 'POST', session });
    expect(refused.status).toBe(401);
    expect((await refused.json()).error.code).toBe('reauth_required');
  });

  it('re-auth opens a new window from its own time', async () => {
    t = await appWithSensitiveRoute();
    const session = await t.login();
    t.clock.advance(3_600_000);
    expect((await t.request('/ops/api/test/sensitive', { method: 'POST', session })).status).toBe(401);
    const reauth = await t.request('/ops/api/reauth', {
      method: 'POST',
      session,
      json: { password: t.password },
    });
    expect(reauth.status).toBe(200);
    expect(Date.parse((await reauth.json()).recentAuthUntil)).toBe(t.clock.now() + 600_000);
    const renewed = { cookie: sessionCookieFrom(reauth) ?? '', csrfToken: session.csrfToken };
    t.clock.advance(599_000);
    expect((await t.request('/ops/api/test/sensitive', { method: 'POST', session: renewed })).status).toBe(
      200,
    );
    t.clock.advance(2_000);
    expect((await t.request('/ops/api/test/sensitive', { method: 'POST', session: renewed })).status).toBe(
      401,
    );
  });

  it('follows HAL_REAUTH_WINDOW_S', async () => {
    t = await appWithSensitiveRoute({ reauthWindowS: 60 });
    const session = await t.login();
    t.clock.advance(59_000);
    expect((await t.request('/ops/api/test/sensitive', { method: 'POST', session })).status).toBe(200);
    t.clock.advance(2_000);
    expect((await t.request('/ops/api/test/sensitive', { method: 'POST', session })).status).toBe(401);
  });
});
