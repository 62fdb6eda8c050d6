import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/foundation.test-support.js';

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Turns a route pattern into a concrete path (`:id`, `:id{regex}` and `*` become `x`). */
function concrete(pattern: string): string {
  // A parameter limited to alternatives (`:action{cancel|retry}`) takes the first one, so the route matches.
  return pattern
    .replace(/:[A-Za-z0-9_]+\{([A-Za-z0-9_-]+)\|[^}]*\}/g, '$1')
    .replace(/:[A-Za-z0-9_]+(\{[^}]*\})?\??/g, 'x')
    .replace(/\*/g, 'x');
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

  it('refuses every state-changing /ops route a form post without its token (wrong _csrf field, or none)', async () => {
    t = await createTestApp({ core: { hostname: 'hal-csrf-host' } });
    const session = await t.login();
    const targets = t.app.routes
      .filter(
        (route) => UNSAFE.has(route.method) && route.path.startsWith('/ops/') && route.path !== '/ops/login',
      )
      .map((route) => ({ method: route.method, path: concrete(route.path) }));
    expect(targets).toContainEqual({ method: 'POST', path: '/ops/releases' });
    expect(targets).toContainEqual({ method: 'POST', path: '/ops/servers' });
    for (const target of targets) {
      const urlencoded = await t.request(target.path, {
        method: target.method,
        headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: `${session.csrfToken}x`, name: 'web-1', role: 'web' }).toString(),
      });
      expect({ ...target, status: urlencoded.status }).toEqual({ ...target, status: 403 });
      const multipart = new FormData();
      multipart.set('name', 'web-1');
      multipart.set('artifact', new Blob([new Uint8Array(16)]), 'a.tar.gz');
      const noField = await t.request(target.path, {
        method: target.method,
        headers: { cookie: session.cookie },
        body: multipart,
      });
      expect({ ...target, status: noField.status }).toEqual({ ...target, status: 403 });
    }
    // Nothing ran: no server was registered, no release stored, the session is alive.
    const core = t.deps.core as NonNullable<typeof t.deps.core>;
    expect((await core.servers.list()).servers.map((s) => s.name)).not.toContain('web-1');
    expect((await core.releases.list()).releases).toEqual([]);
    expect((await t.request('/ops/api/session', { headers: { cookie: session.cookie } })).status).toBe(200);
  });

  it('never reads a body to check the token: a refused upload is answered before its first byte is pulled', async () => {
    t = await createTestApp();
    const session = await t.login();
    for (const headers of [
      // The API takes the header only; a form field cannot stand in for it there.
      { cookie: session.cookie },
      { cookie: session.cookie, 'x-csrf-token': `${session.csrfToken}x` },
    ]) {
      let pulled = false;
      const body = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            pulled = true;
            controller.enqueue(
              new TextEncoder().encode(
                `--b\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${session.csrfToken}\r\n--b--\r\n`,
              ),
            );
            controller.close();
          },
        },
        { highWaterMark: 0 },
      );
      const response = await t.request('/ops/api/hal/releases', {
        method: 'POST',
        headers: { ...headers, 'content-type': 'multipart/form-data; boundary=b' },
        body,
        duplex: 'half',
      } as RequestInit);
      expect(response.status).toBe(403);
      expect((await response.json()).error.code).toBe('csrf_failed');
      expect(pulled).toBe(false);
    }
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
