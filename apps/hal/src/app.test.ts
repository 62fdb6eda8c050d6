import fs from 'node:fs';
import { HalError } from '@hal-ai/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/foundation.test-support.js';
import { requireSqlite } from './platform/db/database.js';
import { CONTENT_SECURITY_POLICY } from './platform/http/security-headers.js';

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

const packageVersion = JSON.parse(
  fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).version;

function expectSecurityHeaders(response: Response) {
  expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
  expect(CONTENT_SECURITY_POLICY).toBe(
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  );
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('referrer-policy')).toBe('same-origin');
  expect(response.headers.get('x-frame-options')).toBe('DENY');
}

describe('error mapping', () => {
  it('answers unknown routes with 404 not_found, signed in or not', async () => {
    t = await createTestApp();
    const anonymous = await t.request('/nope');
    expect(anonymous.status).toBe(404);
    expect(await anonymous.json()).toEqual({ error: { code: 'not_found', message: 'Not found' } });
    const session = await t.login();
    const api = await t.request('/ops/api/nope', { session });
    expect(api.status).toBe(404);
    expect((await api.json()).error.code).toBe('not_found');
  });

  it('answers malformed JSON with 400 validation_failed', async () => {
    t = await createTestApp();
    const login = await t.request('/ops/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"username": "alice", ',
    });
    expect(login.status).toBe(400);
    expect((await login.json()).error.code).toBe('validation_failed');
    const session = await t.login();
    const reauth = await t.request('/ops/api/reauth', {
      method: 'POST',
      session,
      headers: { 'content-type': 'application/json' },
      body: 'not json',
    });
    expect(reauth.status).toBe(400);
    expect((await reauth.json()).error.code).toBe('validation_failed');
  });

  it('answers bodies over 1 MB with 413 payload_too_large, with or without Content-Length', async () => {
    t = await createTestApp();
    const big = JSON.stringify({ username: 'alice', password: 'x'.repeat(1024 * 1024) });
    const declared = await t.request('/ops/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(big)) },
      body: big,
    });
    expect(declared.status).toBe(413);
    expect((await declared.json()).error.code).toBe('payload_too_large');

    const chunks = [big.slice(0, 600_000), big.slice(600_000)];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const streamed = await t.app.request('/ops/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  it('maps HalError to its status and body, and anything else to a bare 500 without internals', async () => {
    t = await createTestApp();
    t.app.get('/api/test/hal-error', () => {
      throw new HalError('unknown_addressee', 'No participant named @bob', {
        details: { participants: ['alice'] },
      });
    });
    t.app.get('/api/test/crash', () => {
      throw new Error('database password is hunter2 at /srv/hal/secret.ts:12');
    });
    const known = await t.request('/api/test/hal-error');
    expect(known.status).toBe(400);
    expect(await known.json()).toEqual({
      error: { code: 'unknown_addressee', message: 'No participant named @bob', participants: ['alice'] },
    });
    const crash = await t.request('/api/test/crash');
    expect(crash.status).toBe(500);
    const text = await crash.text();
    expect(JSON.parse(text)).toEqual({ error: { code: 'internal_error', message: 'Internal error' } });
    expect(text).not.toMatch(/hunter2|secret\.ts|at .*:\d+/);
    expectSecurityHeaders(crash);
  });
});

describe('security headers', () => {
  it('are on every response: JSON, HTML, redirects, errors', async () => {
    t = await createTestApp();
    for (const path of ['/api/health', '/ops/login', '/ops', '/missing', '/ops/api/session']) {
      expectSecurityHeaders(await t.request(path));
    }
  });
});

describe('GET /api/health', () => {
  it('reports version, uptime by the clock, database and jobs without a session', async () => {
    t = await createTestApp();
    t.clock.advance(42_500);
    const response = await t.request('/api/health');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      version: packageVersion,
      uptimeS: 42,
      db: 'ok',
      // The core exists but its job runner was not started.
      jobs: { status: 'stopped', running: 0, queued: 0, concurrency: 0 },
    });
  });

  it("reports the job runner's status when there is one", async () => {
    t = await createTestApp({
      build: (deps) => {
        deps.jobs = { status: () => ({ status: 'running', running: 1, queued: 2 }) };
      },
    });
    expect((await (await t.request('/api/health')).json()).jobs).toEqual({
      status: 'running',
      running: 1,
      queued: 2,
    });
  });

  it("reports db: 'error' with 503 when the database is gone", async () => {
    t = await createTestApp();
    requireSqlite(t.deps.database).close();
    const response = await t.request('/api/health');
    expect(response.status).toBe(503);
    expect((await response.json()).db).toBe('error');
  });
});
