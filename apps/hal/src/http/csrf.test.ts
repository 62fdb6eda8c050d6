import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/foundation.test-support.js';

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Turns a route pattern into a concrete path (`:id`, `:id{regex}` and `*` become `x`). */
function concrete(pattern: string): string {
  return pattern.replace(/:[A-Za-z0-9_]+(\{[^}]*\})?\??/g, 'x').replace(/\*/g, 'x');
}

describe('CSRF', () => {
  it('refuses every state-changing /ops route without the token, or from a foreign Origin (403 csrf_failed)', async () => {
    t = await createTestApp();
    const session = await t.login();
    const targets = t.app.routes
      .filter(
        (route) => UNSAFE.has(route.method) && route.path.startsWith('/ops/') && route.path !== '/ops/login',
      )
      .map((route) => ({ method: route.method, path: concrete(route.path) }));
    // The walk is only meaningful if it sees the routes; these two always exist.
    expect(targets).toContainEqual({ method: 'POST', path: '/ops/api/reauth' });
    expect(targets).toContainEqual({ method: 'POST', path: '/ops/logout' });
    expect(targets.filter((target) => target.path.startsWith('/ops/api/')).length).toBeGreaterThan(0);

    for (const target of targets) {
      const withoutToken = await t.request(target.path, {
        method: target.method,
        headers: { cookie: session.cookie },
        json: { password: t.password },
      });
      expect({ ...target, status: withoutToken.status }).toEqual({ ...target, status: 403 });
      expect((await withoutToken.json()).error.code).toBe('csrf_failed');

      const foreign = await t.request(target.path, {
        method: target.method,
        session,
        headers: { origin: 'https://evil.example' },
        json: { password: t.password },
      });
      expect({ ...target, status: foreign.status }).toEqual({ ...target, status: 403 });
      expect((await foreign.json()).error.code).toBe('csrf_failed');

      const wrongToken = await t.request(target.path, {
        method: target.method,
        headers: { cookie: session.cookie, 'x-csrf-token': `${session.csrfToken}x` },
        json: { password: t.password },
      });
      expect({ ...target, status: wrongToken.status }).toEqual({ ...target, status: 403 });
    }
    // None of those reached a handler: the session is still alive.
    expect((await t.request('/ops/api/session', { headers: { cookie: session.cookie } })).status).toBe(200);
  });

  it('accepts the token from the same origin, and as the _csrf field of a server-rendered form', async () => {
    t = await createTestApp();
    const session = await t.login();
    const reauth = await t.request('/ops/api/reauth', {
      method: 'POST',
      session,
      headers: { origin: 'http://localhost' },
      json: { password: t.password },
    });
    expect(reauth.status).toBe(200);

    const again = await t.login();
    const wrongField = await t.request('/ops/logout', {
      method: 'POST',
      headers: { cookie: again.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: 'nope' }).toString(),
    });
    expect(wrongField.status).toBe(403);
    const form = await t.request('/ops/logout', {
      method: 'POST',
      headers: { cookie: again.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: again.csrfToken }).toString(),
    });
    expect(form.status).toBe(303);
    expect(form.headers.get('location')).toBe('/ops/login');
  });

  it('refuses Sec-Fetch-Site: cross-site even with a token', async () => {
    t = await createTestApp();
    const session = await t.login();
    const response = await t.request('/ops/api/reauth', {
      method: 'POST',
      session,
      headers: { 'sec-fetch-site': 'cross-site' },
      json: { password: t.password },
    });
    expect(response.status).toBe(403);
  });
});
