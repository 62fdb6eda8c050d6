import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, sessionCookieFrom, type TestApp } from '../../../test/foundation.test-support.js';

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

describe('login', () => {
  it('signs in with the right password, returns the session and sets an HttpOnly, Lax cookie', async () => {
    t = await createTestApp();
    const response = await t.request('/ops/login', {
      method: 'POST',
      json: { username: 'alice', password: t.password },
    });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.operator).toEqual({ id: t.operator.id, username: 'alice' });
    expect(typeof body.csrfToken).toBe('string');
    expect(Date.parse(body.recentAuthUntil)).toBe(t.clock.now() + 600_000);
    const setCookie = response.headers.getSetCookie().join('\n');
    expect(setCookie).toMatch(/hal_session=/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).toMatch(/Path=\//);
    expect(setCookie).not.toMatch(/Secure/);

    const session = await t.request('/ops/api/session', {
      headers: { cookie: sessionCookieFrom(response) ?? '' },
    });
    expect(session.status).toBe(200);
    expect(await session.json()).toEqual({
      operator: { id: t.operator.id, username: 'alice' },
      csrfToken: body.csrfToken,
      recentAuthUntil: body.recentAuthUntil,
    });
  });

  it('re-hashes a password stored with older scrypt parameters at the next login, transparently', async () => {
    t = await createTestApp({ config: { passwordHashing: { N: 2 ** 11, r: 8, p: 1 } } });
    const stored = async () =>
      (
        await t.deps.db
          .selectFrom('operators')
          .select('password_hash')
          .where('id', '=', t.operator.id)
          .executeTakeFirstOrThrow()
      ).password_hash;
    const before = await stored();
    expect(before.startsWith('scrypt$2048$')).toBe(false);
    const wrong = await t.request('/ops/login', {
      method: 'POST',
      json: { username: 'alice', password: 'nope' },
    });
    expect(wrong.status).toBe(401);
    expect(await stored()).toBe(before);
    const first = await t.request('/ops/login', {
      method: 'POST',
      json: { username: 'alice', password: t.password },
    });
    expect(first.status).toBe(200);
    const after = await stored();
    expect(after.startsWith('scrypt$2048$8$1$')).toBe(true);
    expect(after).not.toContain(t.password);
    const again = await t.request('/ops/login', {
      method: 'POST',
      json: { username: 'alice', password: t.password },
    });
    expect(again.status).toBe(200);
    expect(await stored()).toBe(after);
  });

  it('refuses a malformed login body with 400 validation_failed and another type with 415, never a 500', async () => {
    t = await createTestApp();
    const bodies: Array<{ type?: string; body: string; status: number; code: string }> = [
      {
        type: 'multipart/form-data',
        body: '--x\r\ncontent-disposition: form-data; name="username"\r\n\r\nalice',
        status: 415,
        code: 'unsupported_media_type',
      },
      {
        type: 'multipart/form-data; boundary=zzz',
        body: '--yyy\r\n\r\ntruncated',
        status: 415,
        code: 'unsupported_media_type',
      },
      { type: 'text/plain', body: 'username=alice', status: 415, code: 'unsupported_media_type' },
      { body: '{"username":"alice"', status: 415, code: 'unsupported_media_type' },
      { type: 'application/json', body: '{"username":"alice",', status: 400, code: 'validation_failed' },
      { type: 'application/json', body: '["alice"]', status: 400, code: 'validation_failed' },
    ];
    for (const { type, body, status, code } of bodies) {
      const response = await t.request('/ops/login', {
        method: 'POST',
        ...(type ? { headers: { 'content-type': type } } : {}),
        body,
      });
      expect(response.status, `${type} ${body}`).toBe(status);
      expect((await response.json()).error.code).toBe(code);
      expect(sessionCookieFrom(response)).toBeNull();
    }
  });

  it('names the bad field of a login or re-auth body as every JSON route does: issues with its path', async () => {
    t = await createTestApp();
    const issuesOf = async (response: Response) => {
      expect(response.status).toBe(400);
      const { error } = (await response.json()) as {
        error: { code: string; issues: Array<{ path: string }> };
      };
      expect(error.code).toBe('validation_failed');
      return error.issues.map((issue) => issue.path);
    };
    const login = (json: unknown) => t?.request('/ops/login', { method: 'POST', json }) as Promise<Response>;
    expect(await issuesOf(await login({ username: 'admin' }))).toEqual(['password']);
    expect(await issuesOf(await login({ username: 'admin', password: 'x'.repeat(1025) }))).toEqual([
      'password',
    ]);
    expect(await issuesOf(await login({ username: 7, password: 'p' }))).toEqual(['username']);
    const session = await t.login();
    for (const body of ['"just a string"', '{"password":""}', '{"password":12}']) {
      const response = await t.request('/ops/api/reauth', {
        method: 'POST',
        session,
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(await issuesOf(response), body).toEqual(body.startsWith('{') ? ['password'] : ['']);
    }
  });

  it('keeps next a same-origin console path: a CR/LF in it falls back to /ops instead of failing', async () => {
    t = await createTestApp();
    for (const next of ['/ops\r\nSet-Cookie: x=1', '/ops/servers\nLocation: //evil', '/ops/é']) {
      const response = await t.request('/ops/login', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: 'alice', password: t.password, next }).toString(),
      });
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/ops');
      expect(response.headers.get('set-cookie')).not.toContain('x=1');
    }
    const page = await t.request('/ops/login?next=%2Fops%0d%0aX:1');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('value="/ops"');
  });

  it('marks the cookie Secure behind a trusted https proxy', async () => {
    t = await createTestApp({ config: { trustProxy: true } });
    const response = await t.request('/ops/login', {
      method: 'POST',
      headers: { 'x-forwarded-proto': 'https' },
      json: { username: 'alice', password: t.password },
    });
    expect(response.status).toBe(200);
    expect(response.headers.getSetCookie().join('\n')).toMatch(/Secure/);
  });

  it('refuses a wrong password and an unknown user alike with 401 invalid_credentials', async () => {
    t = await createTestApp();
    for (const credentials of [
      { username: 'alice', password: 'not-the-password' },
      { username: 'mallory', password: t.password },
    ]) {
      const response = await t.request('/ops/login', { method: 'POST', json: credentials });
      expect(response.status).toBe(401);
      expect((await response.json()).error.code).toBe('invalid_credentials');
      expect(sessionCookieFrom(response)).toBeNull();
    }
    const audit = await t.deps.audit.list({ actionPrefix: 'auth.login_failed' });
    expect(audit.entries).toHaveLength(2);
    expect(JSON.stringify(audit.entries)).not.toContain('mallory');
  });

  it('refuses a login from a foreign Origin', async () => {
    t = await createTestApp();
    const response = await t.request('/ops/login', {
      method: 'POST',
      headers: { origin: 'https://evil.example' },
      json: { username: 'alice', password: t.password },
    });
    expect(response.status).toBe(403);
    expect((await response.json()).error.code).toBe('csrf_failed');
  });

  it("says every failure of the login form in the page's language only: fields, origin, body, password", async () => {
    t = await createTestApp();
    const post = async (
      language: string,
      fields: Record<string, string>,
      headers: Record<string, string> = { origin: 'http://localhost' },
    ) => {
      const response = await t.request('/ops/login', {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'accept-language': language,
          ...headers,
        },
        body: new URLSearchParams(fields).toString(),
      });
      const html = await response.text();
      const alert =
        /<div class="alert alert-error" role="alert" data-error-code="([a-z_]+)">([\s\S]*?)<\/div>/.exec(
          html,
        );
      return {
        status: response.status,
        code: alert?.[1],
        text: (alert?.[2] ?? '')
          .replace(/<[^>]+>/g, ' ')
          .replace(/\s+/g, ' ')
          .trim(),
        lang: /<html lang="([a-z]+)">/.exec(html)?.[1],
      };
    };
    const tooLong = { username: 'u'.repeat(1025), password: 'p' };
    expect(await post('ko', tooLong)).toEqual({
      status: 400,
      code: 'validation_failed',
      text: '입력한 값이 올바르지 않습니다. 사용자 이름: 1024자 이하여야 합니다',
      lang: 'ko',
    });
    expect(await post('en', tooLong)).toEqual({
      status: 400,
      code: 'validation_failed',
      text: 'Some values are not valid. Username: must be at most 1024 characters',
      lang: 'en',
    });
    expect(await post('ko', { username: '', password: 'p' })).toMatchObject({
      text: '입력한 값이 올바르지 않습니다. 사용자 이름: 비워 둘 수 없습니다',
    });
    // A foreign origin is answered by the page too (the browser shows it), before a field is read.
    const foreign = { origin: 'https://evil.example' };
    expect(await post('ko', { username: 'alice', password: 'x' }, foreign)).toEqual({
      status: 403,
      code: 'csrf_failed',
      text: '요청을 확인할 수 없습니다. 페이지를 새로 고친 뒤 다시 해 보세요.',
      lang: 'ko',
    });
    expect(await post('en', { username: 'alice', password: 'x' }, foreign)).toMatchObject({
      code: 'csrf_failed',
      text: 'The request could not be verified. Reload the page and try again.',
    });
    expect(await post('en', { username: 'alice', password: 'nope' })).toMatchObject({
      status: 401,
      code: 'invalid_credentials',
      text: 'The username or password is wrong.',
    });
    // valibot's English (or the schema's) is never what the Korean page says.
    for (const fields of [tooLong, { username: '', password: 'p' }]) {
      const { text } = await post('ko', fields);
      expect(text).not.toMatch(/[A-Za-z]{3,}/);
    }
  });

  it('works as a plain HTML form: login page, form post redirects to /ops, bad password re-renders', async () => {
    t = await createTestApp();
    const page = await t.request('/ops/login');
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('<form method="post" action="/ops/login" class="stack">');
    expect(text).not.toContain('<script');
    // No preference yet: Korean unless the browser asks for English; the console's stylesheet and icon.
    expect(text).toContain('<html lang="ko">');
    expect(text).toContain('<link rel="stylesheet" href="/ops/assets/console.css" />');
    expect(text).toContain('<link rel="icon" type="image/svg+xml" href="/ops/assets/favicon.svg" />');
    const english = await (
      await t.request('/ops/login', { headers: { 'accept-language': 'en-US,en;q=0.9,ko;q=0.5' } })
    ).text();
    expect(english).toContain('<html lang="en">');
    expect(english).toContain('>Sign in</button>');
    expect(text).toContain('>로그인</button>');
    for (const asset of ['/ops/assets/console.css', '/ops/assets/favicon.svg']) {
      expect((await t.request(asset)).status).toBe(200);
    }

    const wrong = await t.request('/ops/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost' },
      body: new URLSearchParams({ username: 'alice', password: 'nope' }).toString(),
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('사용자 이름 또는 비밀번호가 맞지 않습니다.');

    const right = await t.request('/ops/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost' },
      body: new URLSearchParams({
        username: 'alice',
        password: t.password,
        next: '//evil.example/x',
      }).toString(),
    });
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/ops');
    expect(sessionCookieFrom(right)).not.toBeNull();
  });

  it('rate-limits after 5 failures per user and address with 429 and Retry-After, even for the right password', async () => {
    t = await createTestApp();
    for (let i = 0; i < 5; i += 1) {
      const response = await t.request('/ops/login', {
        method: 'POST',
        json: { username: 'alice', password: `x${i}` },
      });
      expect(response.status).toBe(401);
    }
    const limited = await t.request('/ops/login', {
      method: 'POST',
      json: { username: 'alice', password: t.password },
    });
    expect(limited.status).toBe(429);
    expect((await limited.json()).error.code).toBe('rate_limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);

    t.clock.advance(15 * 60 * 1000 + 1);
    const later = await t.request('/ops/login', {
      method: 'POST',
      json: { username: 'alice', password: t.password },
    });
    expect(later.status).toBe(200);
  });

  it('holds the limit under concurrency: 25 wrong passwords at once get at most 5 × 401, the rest 429', async () => {
    t = await createTestApp();
    const statuses = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        t
          .request('/ops/login', { method: 'POST', json: { username: 'alice', password: `guess-${i}` } })
          .then((response) => response.status),
      ),
    );
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
  });

  it('lets no guess through a concurrent burst: the right password 14th of 21 is refused', async () => {
    t = await createTestApp();
    const statuses = await Promise.all(
      Array.from({ length: 21 }, (_, i) =>
        t
          .request('/ops/login', {
            method: 'POST',
            json: { username: 'alice', password: i === 13 ? t.password : `guess-${i}` },
          })
          .then((response) => response.status),
      ),
    );
    expect(statuses).not.toContain(200);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(16);
  });
});

describe('sessions', () => {
  it('logout ends the session server-side (the old cookie is refused afterwards)', async () => {
    t = await createTestApp();
    const session = await t.login();
    const logout = await t.request('/ops/logout', { method: 'POST', session });
    expect(logout.status).toBe(204);
    const after = await t.request('/ops/api/session', { headers: { cookie: session.cookie } });
    expect(after.status).toBe(401);
    expect((await after.json()).error.code).toBe('unauthenticated');
    const rows = await t.deps.db.selectFrom('sessions').selectAll().execute();
    expect(rows).toHaveLength(0);
  });

  it('needs the CSRF token to log out', async () => {
    t = await createTestApp();
    const session = await t.login();
    const logout = await t.request('/ops/logout', { method: 'POST', headers: { cookie: session.cookie } });
    expect(logout.status).toBe(403);
    expect((await t.request('/ops/api/session', { headers: { cookie: session.cookie } })).status).toBe(200);
  });

  it('changes the session id at login and at re-auth; a planted pre-login cookie is useless', async () => {
    t = await createTestApp();
    const planted = 'hal_session=attacker-chosen-value-000000000000';
    expect((await t.request('/ops/api/session', { headers: { cookie: planted } })).status).toBe(401);

    const login = await t.request('/ops/login', {
      method: 'POST',
      headers: { cookie: planted },
      json: { username: 'alice', password: t.password },
    });
    const first = { cookie: sessionCookieFrom(login) ?? '', csrfToken: (await login.json()).csrfToken };
    expect(first.cookie).not.toBe(planted);
    expect((await t.request('/ops/api/session', { headers: { cookie: planted } })).status).toBe(401);

    // Logging in again from a live session replaces it.
    const again = await t.request('/ops/login', {
      method: 'POST',
      headers: { cookie: first.cookie },
      json: { username: 'alice', password: t.password },
    });
    const second = { cookie: sessionCookieFrom(again) ?? '', csrfToken: (await again.json()).csrfToken };
    expect(second.cookie).not.toBe(first.cookie);
    expect((await t.request('/ops/api/session', { headers: { cookie: first.cookie } })).status).toBe(401);

    const reauth = await t.request('/ops/api/reauth', {
      method: 'POST',
      session: second,
      json: { password: t.password },
    });
    expect(reauth.status).toBe(200);
    const third = sessionCookieFrom(reauth);
    expect(third).not.toBeNull();
    expect(third).not.toBe(second.cookie);
    expect((await t.request('/ops/api/session', { headers: { cookie: second.cookie } })).status).toBe(401);
    expect((await t.request('/ops/api/session', { headers: { cookie: third ?? '' } })).status).toBe(200);
  });

  it('expires after 12 hours idle and after 7 days absolute', async () => {
    t = await createTestApp();
    const session = await t.login();
    t.clock.advance(11 * 60 * 60 * 1000);
    expect((await t.request('/ops/api/session', { headers: { cookie: session.cookie } })).status).toBe(200);
    t.clock.advance(12 * 60 * 60 * 1000 + 1000);
    expect((await t.request('/ops/api/session', { headers: { cookie: session.cookie } })).status).toBe(401);

    const active = await t.login();
    for (let hour = 0; hour < 7 * 24; hour += 6) {
      t.clock.advance(6 * 60 * 60 * 1000);
      const status = (await t.request('/ops/api/session', { headers: { cookie: active.cookie } })).status;
      if (hour + 6 < 7 * 24) expect(status).toBe(200);
      else expect(status).toBe(401);
    }
  });

  it('redirects pages without a session to the login form, and answers 401 on the API', async () => {
    t = await createTestApp();
    const page = await t.request('/ops/servers');
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe('/ops/login?next=%2Fops%2Fservers');
    const root = await t.request('/ops');
    expect(root.status).toBe(302);
    const api = await t.request('/ops/api/hal/servers');
    expect(api.status).toBe(401);
    expect((await api.json()).error.code).toBe('unauthenticated');
  });

  it('re-auth refuses a wrong password with 401 invalid_credentials and is rate limited', async () => {
    t = await createTestApp();
    const session = await t.login();
    for (let i = 0; i < 5; i += 1) {
      const response = await t.request('/ops/api/reauth', {
        method: 'POST',
        session,
        json: { password: `x${i}` },
      });
      expect(response.status).toBe(401);
      expect((await response.json()).error.code).toBe('invalid_credentials');
    }
    const limited = await t.request('/ops/api/reauth', {
      method: 'POST',
      session,
      json: { password: t.password },
    });
    expect(limited.status).toBe(429);
  });

  it('audits login, re-auth and logout', async () => {
    t = await createTestApp();
    const session = await t.login();
    const reauth = await t.request('/ops/api/reauth', {
      method: 'POST',
      session,
      json: { password: t.password },
    });
    const next = { cookie: sessionCookieFrom(reauth) ?? '', csrfToken: session.csrfToken };
    expect((await t.request('/ops/logout', { method: 'POST', session: next })).status).toBe(204);
    const { entries } = await t.deps.audit.list({ actionPrefix: 'auth.' });
    expect(entries.map((entry) => entry.action).reverse()).toEqual([
      'auth.login',
      'auth.reauth',
      'auth.logout',
    ]);
    expect(entries.every((entry) => entry.actor === `operator:${t.operator.id}`)).toBe(true);
  });
});
