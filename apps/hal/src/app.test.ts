import fs from 'node:fs';
import os from 'node:os';
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
  const job = (id: string, state: 'queued' | 'running' | 'succeeded', startedAt: string | null) => ({
    id,
    type: 'dr.snapshot',
    state,
    target: null,
    args: '{}',
    reason: null,
    error: null,
    result: null,
    control: null,
    attempts: 0,
    created_by: 'operator:test',
    created_at: new Date(0).toISOString(),
    started_at: startedAt,
    finished_at: state === 'succeeded' ? startedAt : null,
    parent_job_id: null,
  });

  it('reports no serving instance and an idle runner from the database before HAL starts', async () => {
    t = await createTestApp();
    t.clock.advance(42_500);
    const response = await t.request('/api/health');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      version: packageVersion,
      uptimeS: 0,
      db: 'ok',
      jobs: { status: 'stopped', running: 0, queued: 0, concurrency: 0, lastRun: null },
      instanceCount: 0,
    });
  });

  it('tells an anonymous caller how many instances serve, never their hosts, pids or ids', async () => {
    t = await createTestApp();
    await t.deps.start();
    const response = await t.request('/api/health');
    expect(response.status).toBe(200);
    const report = await response.json();
    expect(Object.keys(report).sort()).toEqual(['db', 'instanceCount', 'jobs', 'uptimeS', 'version']);
    expect(report.instanceCount).toBe(1);
    const text = JSON.stringify(report);
    expect(text).not.toContain(t.deps.instances.id);
    expect(text).not.toContain(String(process.pid));
    expect(text).not.toContain(`"${os.hostname()}"`);
    // A forged or stale cookie is no session: the same public report, not an error.
    const forged = await t.request('/api/health', { headers: { cookie: 'hal_session=forged' } });
    expect(forged.status).toBe(200);
    expect(Object.keys(await forged.json())).not.toContain('instances');
  });

  it('reports this instance to a signed-in operator from its heartbeat, its uptime by the clock, and the jobs as stored', async () => {
    t = await createTestApp();
    await t.deps.start();
    t.clock.advance(42_500);
    await t.deps.instances.beat();
    const at = (ms: number) => new Date(t.clock.now() - ms).toISOString();
    // Rows as the runners of any instance leave them (nothing here is claimable: no job type runs them).
    await t.deps.db
      .insertInto('jobs')
      .values([job('job-old', 'succeeded', at(20_000)), job('job-new', 'running', at(1_000))])
      .execute();
    const session = await t.login();
    const report = await (await t.request('/api/health', { session })).json();
    expect(report).toMatchObject({ version: packageVersion, uptimeS: 42, db: 'ok' });
    expect(report.instances).toEqual([
      {
        id: t.deps.instances.id,
        host: expect.any(String),
        pid: process.pid,
        version: packageVersion,
        startedAt: new Date(t.clock.now() - 42_500).toISOString(),
        heartbeatAt: new Date(t.clock.now()).toISOString(),
        uptimeS: 42,
        self: true,
        jobs: { status: 'running', running: 0, concurrency: expect.any(Number) },
      },
    ]);
    expect(report.jobs).toEqual({
      status: 'running',
      running: 1,
      queued: 0,
      concurrency: report.instances[0].jobs.concurrency,
      lastRun: {
        id: 'job-new',
        type: 'dr.snapshot',
        state: 'running',
        startedAt: at(1_000),
        finishedAt: null,
      },
    });
    expect(report.jobs.concurrency).toBeGreaterThan(0);
  });

  it("reports db: 'error' with 503 when the database is gone", async () => {
    t = await createTestApp();
    requireSqlite(t.deps.database).close();
    const response = await t.request('/api/health');
    expect(response.status).toBe(503);
    expect((await response.json()).db).toBe('error');
  });
});
