import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestSession } from '../foundation.test-support.js';
import { createTally, recordFigures } from './hostile-figures.test-support.js';

// Issue #22 hole 3: multipart without a boundary, truncated or with a wrong boundary (release upload, login, console
// forms) and a CR/LF in the login's `next` all answered `500 internal_error`. Each must be a 4xx with its code, and
// `next` must stay a same-origin console path.

const BOUNDARY = '----hostile-malformed-boundary';

/** A well-formed release upload body, then its malformed variants with the content type each is sent with. */
function malformedUploads(): Array<[string, Buffer, string]> {
  const head =
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="module"\r\n\r\nportal\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="version"\r\n\r\n1.0.0\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="sha256"\r\n\r\n${'a'.repeat(64)}\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="artifact"; filename="a.tar.gz"\r\n` +
    'Content-Type: application/gzip\r\n\r\n';
  const tail = `\r\n--${BOUNDARY}--\r\n`;
  const whole = Buffer.concat([Buffer.from(head), randomBytes(64 * 1024), Buffer.from(tail)]);
  const typed = `multipart/form-data; boundary=${BOUNDARY}`;
  return [
    ['no boundary', whole, 'multipart/form-data'],
    ['empty boundary', whole, 'multipart/form-data; boundary='],
    ['wrong boundary', whole, 'multipart/form-data; boundary=something-else'],
    ['truncated in the file', whole.subarray(0, whole.length - tail.length - 1000), typed],
    ['truncated in a header', Buffer.from(`--${BOUNDARY}\r\nContent-Dispo`), typed],
    ['no closing delimiter', whole.subarray(0, whole.length - 4), typed],
    ['garbage', randomBytes(4096), typed],
    ['empty', Buffer.alloc(0), typed],
  ];
}

let hal: TestApp;
let session: TestSession;

beforeAll(async () => {
  hal = await createTestApp();
  session = await hal.login();
});
afterAll(() => hal.close());

describe('hostile: malformed bodies are 4xx with their code, never 500', () => {
  it('answers malformed multipart to both release uploads 400 validation_failed and stores nothing', async (context) => {
    const { tally, check } = createTally();
    for (const route of ['/ops/api/hal/releases', '/ops/releases']) {
      for (const [label, body, type] of malformedUploads()) {
        const response = await hal.request(route, {
          method: 'POST',
          session,
          headers: { 'content-type': type, accept: 'application/json' },
          body: new Uint8Array(body),
        });
        const text = await response.text();
        // The console form answers with its page; the API with the §12 body. Either way: 400, no stack trace.
        const ok =
          response.status === 400 &&
          !/internal_error|\bat [\w.]+ \(/.test(text) &&
          (route.startsWith('/ops/api/') ? text.includes('"validation_failed"') : true);
        check(ok, `${route} ${label}: ${response.status}`);
      }
    }
    expect((await hal.deps.core.releases.list()).releases).toEqual([]);
    recordFigures(context, 'body size, type and shape', tally);
    expect(tally.misses).toEqual([]);
  });

  it('refuses multipart to the login and to every other console form from its headers (415), never a 500', async (context) => {
    const { tally, check } = createTally();
    const forms = [
      ...new Set(
        hal.app.routes
          .filter((route) => route.method === 'POST' && route.path.startsWith('/ops/'))
          .filter((route) => !route.path.startsWith('/ops/api/') && route.path !== '/ops/releases')
          .map((route) => route.path.replace(/:[A-Za-z0-9_]+(\{[^}]*\})?\??/g, 'x')),
      ),
    ];
    expect(forms).toContain('/ops/login');
    expect(forms.length).toBeGreaterThan(5);
    for (const route of forms) {
      for (const [label, body, type] of malformedUploads().slice(0, 4)) {
        const response = await hal.request(route, {
          method: 'POST',
          ...(route === '/ops/login' ? {} : { session }),
          headers: { 'content-type': type },
          body: new Uint8Array(body),
        });
        check(response.status === 415, `${route} ${label}: ${response.status}`);
      }
    }
    recordFigures(context, 'body size, type and shape', tally);
    expect(tally.misses).toEqual([]);
  });

  it('keeps the login `next` a same-origin console path whatever it carries (CR/LF, other hosts, controls)', async (context) => {
    const { tally, check } = createTally();
    const nexts = [
      '/ops/servers\r\nSet-Cookie: planted=1',
      '/ops\r\nLocation: http://127.0.0.2/',
      '/ops/%0d%0aX-Injected: 1',
      '/ops\nX-Injected: 1',
      '/ops\u2028x',
      '/ops/\u0000',
      '//127.0.0.2/ops',
      '/\\127.0.0.2',
      'http://127.0.0.2/ops',
      'javascript:alert(1)',
      '/ops/../../etc',
    ];
    for (const next of nexts) {
      // The login page's form: a redirect whose Location must be one same-origin path and nothing else.
      const form = await hal.request('/ops/login', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: 'alice', password: hal.password, next }).toString(),
      });
      const location = form.headers.get('location') ?? '';
      const injected = [...form.headers.keys()].some((name) => /planted|x-injected/i.test(name));
      check(
        form.status < 500 &&
          !injected &&
          (location === '' || (/^\/ops(?:[/?#]|$)/.test(location) && !/[^\x21-\x7e]/.test(location))),
        `form next ${JSON.stringify(next)}: ${form.status} ${JSON.stringify(location)}`,
      );
      // The JSON login answers the target it will use: the same rule.
      const json = await hal.request('/ops/login', {
        method: 'POST',
        json: { username: 'alice', password: hal.password, next },
      });
      const answered = ((await json.json()) as { next?: string }).next ?? '/ops';
      check(
        json.status === 200 && /^\/ops(?:[/?#]|$)/.test(answered) && !/[^\x21-\x7e]/.test(answered),
        `json next ${JSON.stringify(next)}: ${json.status} ${JSON.stringify(answered)}`,
      );
    }
    recordFigures(context, 'body size, type and shape', tally);
    expect(tally.misses).toEqual([]);
  });
});
