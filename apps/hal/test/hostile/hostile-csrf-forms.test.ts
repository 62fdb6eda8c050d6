import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestSession } from '../foundation.test-support.js';
import { createTally, recordFigures } from './hostile-figures.test-support.js';

// The sessions-and-CSRF category's form-encoded bodies: the classic cross-site form post (urlencoded, no preflight,
// the browser sends the cookie). `hostile-http.test.ts` sends JSON and `text/plain`; here every state-changing
// console route gets a form body with the session cookie and no token, a wrong `_csrf` field, or a foreign Origin.

/** A route pattern as a concrete path (`:id{a|b}` takes its first alternative; other parameters become `x`). */
function concrete(pattern: string): string {
  return pattern
    .replace(/:[A-Za-z0-9_]+\{([A-Za-z0-9_-]+)\|[^}]*\}/g, '$1')
    .replace(/:[A-Za-z0-9_]+(\{[^}]*\})?\??/g, 'x')
    .replace(/\*/g, 'x');
}

let hal: TestApp;
let session: TestSession;

/** How many audit entries exist: a refused request must add none. */
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
});
afterAll(() => hal.close());

describe('hostile: form-encoded cross-site posts', () => {
  it('refuses a urlencoded post to every state-changing route without the token, with a wrong one, or cross-origin', async (context) => {
    const unsafe = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
    const targets = [
      ...new Map(
        hal.app.routes
          .filter((route) => unsafe.has(route.method) && route.path.startsWith('/ops'))
          .filter((route) => route.path !== '/ops/login')
          .map((route) => [`${route.method} ${concrete(route.path)}`, route]),
      ).values(),
    ].map((route) => ({ method: route.method, path: concrete(route.path) }));
    expect(targets.length).toBeGreaterThan(40);
    const before = await auditCount();
    const { tally, check } = createTally();
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    // What a hostile page's form would carry: harmless-looking fields, and no way to know the session's token.
    const fields = 'name=x&title=x&key=x.y&severity=minor&confirm=yes';
    for (const target of targets) {
      const label = `${target.method} ${target.path}`;
      const attempts: Array<[string, Record<string, string>, string]> = [
        ['no token', { ...form, cookie: session.cookie }, fields],
        ['wrong _csrf field', { ...form, cookie: session.cookie }, `_csrf=${'0'.repeat(43)}&${fields}`],
        [
          'foreign origin with the token',
          { ...form, cookie: session.cookie, origin: 'https://evil.example' },
          `_csrf=${encodeURIComponent(session.csrfToken)}&${fields}`,
        ],
        [
          'cross-site fetch metadata with the token',
          { ...form, cookie: session.cookie, 'sec-fetch-site': 'cross-site' },
          `_csrf=${encodeURIComponent(session.csrfToken)}&${fields}`,
        ],
      ];
      for (const [what, headers, body] of attempts) {
        const response = await hal.request(target.path, { method: target.method, headers, body });
        const text = await response.text();
        // A JSON route names the code; a console page answers its error page with the same status. Either way
        // 403, or the JSON API's refusal of the form type before anything (415): never a success, never a 500.
        const refused =
          (response.status === 403 &&
            (text.includes('csrf_failed') || !target.path.startsWith('/ops/api/'))) ||
          (response.status === 415 && target.path.startsWith('/ops/api/'));
        check(refused, `${label} ${what}: ${response.status}`);
      }
    }
    const executed = (await auditCount()) - before;
    recordFigures(context, 'sessions, CSRF and Host', { ...tally, badExecutions: executed });
    expect(tally.misses).toEqual([]);
    expect(executed).toBe(0);
  });
});
