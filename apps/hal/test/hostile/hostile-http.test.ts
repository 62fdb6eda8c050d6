import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestSession } from '../foundation.test-support.js';
import { createTally, recordFigures } from './hostile-figures.test-support.js';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A route pattern as a concrete path (`:id`, `:id{regex}` and `*` become `x`). */
function concrete(pattern: string): string {
  // A parameter limited to alternatives (`:action{cancel|retry}`) takes the first one, so the route matches.
  return pattern
    .replace(/:[A-Za-z0-9_]+\{([A-Za-z0-9_-]+)\|[^}]*\}/g, '$1')
    .replace(/:[A-Za-z0-9_]+(\{[^}]*\})?\??/g, 'x')
    .replace(/\*/g, 'x');
}

async function codeOf(response: Response): Promise<string | undefined> {
  const text = await response.text();
  try {
    return (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

let hal: TestApp;
let session: TestSession;
let targets: Array<{ method: string; path: string }>;

/** How many audit entries exist: a refused request must add none (nothing ran). */
async function auditCount(): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await hal.deps.audit.list({ limit: 200, ...(cursor ? { cursor } : {}) });
    count += page.entries.length;
    if (!page.nextCursor) return count;
    cursor = page.nextCursor;
  }
}

beforeAll(async () => {
  hal = await createTestApp();
  session = await hal.login();
  // Every state-changing route the Hono app has, read from the app itself (a new route is covered at once).
  const seen = new Set<string>();
  targets = hal.app.routes
    .filter((route) => UNSAFE.has(route.method) && route.path !== '/ops/login')
    .map((route) => ({ method: route.method, path: concrete(route.path) }))
    .filter((route) => {
      const key = `${route.method} ${route.path}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
});
afterAll(() => hal.close());

describe('hostile: sessions, CSRF, Host and body types over every state-changing route', () => {
  it('refuses each route without a session, without the token, from a foreign Origin and from a foreign Host', async (context) => {
    const { tally, check } = createTally();
    const before = await auditCount();
    const opsTargets = targets.filter((target) => target.path.startsWith('/ops'));
    expect(opsTargets.length).toBeGreaterThan(40);
    for (const target of opsTargets) {
      const label = `${target.method} ${target.path}`;
      const json = { headers: { 'content-type': 'application/json' }, body: '{}' };
      const anonymous = await hal.request(target.path, { method: target.method, ...json });
      check(
        ['unauthenticated', 'csrf_failed'].includes((await codeOf(anonymous)) ?? '') ||
          (anonymous.status === 303 && !target.path.startsWith('/ops/api/')),
        `${label} anonymous ${anonymous.status}`,
      );
      const noToken = await hal.request(target.path, {
        method: target.method,
        ...json,
        headers: { ...json.headers, cookie: session.cookie },
      });
      check((await codeOf(noToken)) === 'csrf_failed', `${label} no token ${noToken.status}`);
      const foreignOrigin = await hal.request(target.path, {
        method: target.method,
        session,
        ...json,
        headers: { ...json.headers, origin: 'https://evil.example' },
      });
      check((await codeOf(foreignOrigin)) === 'csrf_failed', `${label} foreign origin`);
      const crossSite = await hal.request(target.path, {
        method: target.method,
        session,
        ...json,
        headers: { ...json.headers, 'sec-fetch-site': 'cross-site' },
      });
      check((await codeOf(crossSite)) === 'csrf_failed', `${label} cross-site`);
      const foreignHost = await hal.request(`http://rebound.evil.example${target.path}`, {
        method: target.method,
        session,
        ...json,
      });
      check(
        foreignHost.status === 400 && (await codeOf(foreignHost)) === 'validation_failed',
        `${label} foreign host`,
      );
    }
    // A simple cross-site form (text/plain, no preflight) with a stolen-less session to every JSON route.
    for (const target of opsTargets.filter((entry) => entry.path.startsWith('/ops/api/'))) {
      const simple = await hal.request(target.path, {
        method: target.method,
        session,
        headers: { 'content-type': 'text/plain' },
        body: '{"name":"x"}',
      });
      // The release upload's reader refuses what is not multipart itself (after its re-auth check).
      const expected =
        target.path === '/ops/api/hal/releases'
          ? ['validation_failed']
          : ['unsupported_media_type', 'reauth_required'];
      check(
        expected.includes((await codeOf(simple)) ?? ''),
        `${target.method} ${target.path} text/plain ${simple.status}`,
      );
    }
    expect(tally.misses).toEqual([]);
    // Nothing ran: no audit entry was written by any refused request.
    const executed = (await auditCount()) - before;
    recordFigures(context, 'sessions, CSRF and Host', { ...tally, badExecutions: executed });
    expect(executed).toBe(0);
  });

  it('answers hostile body shapes with a 4xx code and never a 500', async (context) => {
    const { tally, check } = createTally();
    const route = '/ops/api/hal/incidents';
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const bodies: Array<[string, BodyInit, string]> = [
      [
        '__proto__ key',
        '{"__proto__":{"polluted":true},"key":"x.y","title":"t","severity":"minor"}',
        'validation_failed',
      ],
      ['constructor key', '{"constructor":{"prototype":{"polluted":true}}}', 'validation_failed'],
      ['deeply nested', deep, 'validation_failed'],
      [
        'invalid UTF-8',
        new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
        'validation_failed',
      ],
      ['truncated', '{"key": "x', 'validation_failed'],
      ['array', '[1,2,3]', 'validation_failed'],
      [
        'huge number',
        `{"key":"a","title":"t","severity":"minor","detail":${'9'.repeat(400)}}`,
        'validation_failed',
      ],
      ['NUL in text', '{"key":"a\\u0000b","title":"t","severity":"minor"}', 'validation_failed'],
    ];
    for (const [label, body, code] of bodies) {
      const response = await hal.request(route, {
        method: 'POST',
        session,
        headers: { 'content-type': 'application/json' },
        body,
      });
      check(response.status === 400 && (await codeOf(response)) === code, `${label}: ${response.status}`);
    }
    const oversized = await hal.request(route, {
      method: 'POST',
      session,
      headers: { 'content-type': 'application/json', 'content-length': String(5 * 1024 * 1024) },
      body: new ReadableStream({ pull: (controller) => controller.close() }, { highWaterMark: 0 }),
      duplex: 'half',
    } as RequestInit);
    check((await codeOf(oversized)) === 'payload_too_large', 'oversized');
    for (const type of [
      'text/plain',
      'application/xml',
      'multipart/form-data; boundary=a',
      'application/x-www-form-urlencoded',
    ]) {
      const typed = await hal.request(route, {
        method: 'POST',
        session,
        headers: { 'content-type': type },
        body: '{}',
      });
      check((await codeOf(typed)) === 'unsupported_media_type', type);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await hal.deps.core.incidents.list()).incidents).toEqual([]);
    expect(tally.misses).toEqual([]);
    recordFigures(context, 'body size, type and shape', tally);
  });

  it('carries the security headers on every kind of answer', async (context) => {
    const { tally, check } = createTally();
    const answers = [
      await hal.request('/api/health'),
      await hal.request('/ops/login'),
      await hal.request('/ops/api/session'),
      await hal.request('/nowhere'),
      await hal.request('/ops/api/hal/incidents', {
        method: 'POST',
        session,
        headers: { 'content-type': 'text/plain' },
        body: 'x',
      }),
      await hal.request('http://evil.example/api/health'),
    ];
    for (const answer of answers) {
      const headers = answer.headers;
      const csp = headers.get('content-security-policy') ?? '';
      check(csp.includes("script-src 'self'") && csp.includes("frame-ancestors 'none'"), `CSP ${answer.url}`);
      check(headers.get('x-content-type-options') === 'nosniff', 'nosniff');
      check(headers.get('referrer-policy') !== null, 'referrer-policy');
      check(headers.get('x-frame-options') === 'DENY', 'x-frame-options');
      check(headers.get('cross-origin-resource-policy') === 'same-origin', `CORP ${answer.url}`);
      check(
        headers.get('cross-origin-opener-policy') === 'same-origin-allow-popups',
        `COOP ${answer.url} ${headers.get('cross-origin-opener-policy')}`,
      );
      // Plain http here (no TLS, no trusted proxy): HSTS would be a lie.
      check(headers.get('strict-transport-security') === null, `no HSTS over http ${answer.url}`);
    }
    // The OAuth callback page alone lets its opener stay (it posts the result to the panel that opened the popup);
    // a failed callback (no state) is that page too, with every other header.
    const callback = await hal.request('/ops/ai/oauth/callback?code=x&state=forged', { session });
    check(callback.headers.get('cross-origin-opener-policy') === 'unsafe-none', 'COOP of the OAuth callback');
    check(callback.headers.get('x-frame-options') === 'DENY', 'x-frame-options of the OAuth callback');
    const callbackScript = await hal.request('/ops/ai/oauth/callback.js');
    check(
      callbackScript.headers.get('cross-origin-opener-policy') === 'same-origin-allow-popups',
      'COOP of the callback script',
    );
    // A forged X-Forwarded-Proto without HAL_TRUST_PROXY does not make the answer https.
    const forged = await hal.request('/api/health', { headers: { 'x-forwarded-proto': 'https' } });
    check(forged.headers.get('strict-transport-security') === null, 'no HSTS on a forged X-Forwarded-Proto');
    expect(tally.misses).toEqual([]);
    recordFigures(context, 'security headers', tally);
  });

  it('tells an anonymous caller no host name, pid or instance id on any route, with any cookie', async (context) => {
    const { tally, check } = createTally();
    // A started HAL of its own: it is registered among the instances, so health has something to hide.
    const started = await createTestApp();
    try {
      await started.deps.start();
      const secrets = [os.hostname(), String(process.pid), started.deps.instances.id];
      const signedIn = await started.login();
      // Control: a signed-in operator does see them, so their absence below means something.
      const full = await (await started.request('/api/health', { session: signedIn })).text();
      for (const value of secrets) expect(full).toContain(value);
      const loggedOut = await started.login();
      await started.request('/ops/logout', { method: 'POST', session: loggedOut });
      const cookies = [
        undefined,
        'hal_session=forged',
        `hal_session=${'a'.repeat(43)}`,
        // A real session's cookie after its logout.
        loggedOut.cookie,
        // A real cookie with a second, forged one beside it.
        `hal_session=; ${signedIn.cookie.replace('hal_session', 'hal_session_x')}`,
      ];
      const reads = started.app.routes
        .filter((route) => route.method === 'GET' && !route.path.includes('*'))
        .map((route) => concrete(route.path));
      expect(reads).toContain('/api/health');
      for (const pathname of new Set(reads)) {
        for (const cookie of cookies) {
          const response = await started.request(pathname, cookie ? { headers: { cookie } } : {});
          const body = await response.text();
          const leaked = secrets.filter((value) => body.includes(value));
          check(leaked.length === 0, `${pathname} with ${cookie ?? 'no cookie'} showed ${leaked.join(', ')}`);
        }
      }
      // The public health report says how many instances serve, and nothing about them.
      const anonymous = await (await started.request('/api/health')).json();
      expect(anonymous).toMatchObject({ db: 'ok', instanceCount: 1 });
      expect(anonymous.instances).toBeUndefined();
    } finally {
      await started.close();
    }
    expect(tally.misses).toEqual([]);
    recordFigures(context, 'anonymous health and reads', tally);
  });
});
