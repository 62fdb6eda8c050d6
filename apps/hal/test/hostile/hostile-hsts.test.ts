import { afterEach, describe, expect, it } from 'vitest';
import { STRICT_TRANSPORT_SECURITY } from '../../src/platform/http/security-headers.js';
import { createTestApp, type TestApp } from '../foundation.test-support.js';
import { createTally, recordFigures } from './hostile-figures.test-support.js';

// The security-headers category's "HSTS behind TLS": HAL behind a trusted TLS proxy (HAL_TRUST_PROXY, the proxy's
// X-Forwarded-Proto: https) sends Strict-Transport-Security on every kind of answer; without the trust, a forged
// X-Forwarded-Proto gets none (hostile-http.test.ts checks plain http; hal-proxy.test.ts runs the real nginx).

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Answers of every kind: a page, the login page, an API error, a static asset, a 404 and a refused Host. */
const PATHS = ['/ops', '/ops/login', '/ops/api/session', '/api/health', '/ops/no-such-page', '/ops/api/nope'];

describe('hostile: HSTS behind TLS', () => {
  it('sends HSTS on every answer behind a trusted https proxy, and none for a forged header without the trust', async (context) => {
    const { tally, check } = createTally();
    for (const trustProxy of [true, false]) {
      t = await createTestApp({ config: { trustProxy } });
      for (const path of PATHS) {
        const response = await t.request(path, { headers: { 'x-forwarded-proto': 'https' } });
        await response.arrayBuffer();
        const hsts = response.headers.get('strict-transport-security');
        check(
          trustProxy ? hsts === STRICT_TRANSPORT_SECURITY : hsts === null,
          `${path} trustProxy=${trustProxy}: ${response.status} ${hsts}`,
        );
      }
      await t.close();
      t = undefined;
    }
    recordFigures(context, 'security headers', tally);
    expect(tally.misses).toEqual([]);
  });
});
