import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { HalError } from '@hal-ai/spec';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { accessLog } from './access-log.js';
import type { AppEnv } from './env.js';
import { createErrorHandler } from './http-errors.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, destination, records: () => lines.map((line) => JSON.parse(line)) };
}

function appWith(trustProxy: boolean) {
  const log = capture();
  const logger = createLogger({ destination: log.destination, level: 'info' });
  const app = new Hono<AppEnv>();
  app.onError(createErrorHandler(createLogger({ level: 'silent' })));
  app.use('*', accessLog({ logger, config: { trustProxy } }));
  // Stands in for the session middleware: the access line reads the operator it set.
  app.use('/ops/*', async (c, next) => {
    c.set('operator', { id: 'op_1', username: 'admin' });
    await next();
  });
  app.post('/ops/api/echo', async (c) => c.json({ length: (await c.req.text()).length }));
  app.get('/api/fail', () => {
    throw new HalError('internal_error', 'boom');
  });
  app.get('/ops/ai/oauth/callback', (c) => c.text('ok'));
  return { app, log };
}

describe('access log', () => {
  it('writes one line per request with its id (also the response header) and the operator, never a body or query', async () => {
    const { app, log } = appWith(false);
    const secret = randomBytes(24).toString('base64url');
    const posted = await app.request('/ops/api/echo', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ apiKey: secret }),
    });
    const callback = await app.request(`/ops/ai/oauth/callback?code=${secret}&state=${secret}`);
    const failed = await app.request('/api/fail');

    const records = log.records();
    expect(records).toHaveLength(3);
    const [echo, oauth, failure] = records;
    expect(posted.headers.get('x-request-id')).toBe(echo.requestId);
    expect(echo).toMatchObject({
      msg: 'request',
      method: 'POST',
      path: '/ops/api/echo',
      status: 200,
      operatorId: 'op_1',
    });
    expect(typeof echo.durationMs).toBe('number');
    expect(oauth).toMatchObject({ path: '/ops/ai/oauth/callback', status: 200 });
    expect(callback.headers.get('x-request-id')).toBe(oauth.requestId);
    expect(failure).toMatchObject({ path: '/api/fail', status: 500, operatorId: null, level: 40 });
    expect(failed.headers.get('x-request-id')).toBe(failure.requestId);
    expect(new Set(records.map((record) => record.requestId)).size).toBe(3);
    expect(log.lines.join('\n')).not.toContain(secret);
  });

  it("keeps a trusted proxy's request id and client address, and ignores them from anyone else", async () => {
    const headers = { 'x-request-id': randomBytes(16).toString('hex'), 'x-forwarded-for': '203.0.113.9' };
    const trusted = appWith(true);
    const response = await trusted.app.request('/ops/ai/oauth/callback', { headers });
    expect(response.headers.get('x-request-id')).toBe(headers['x-request-id']);
    expect(trusted.log.records()[0]).toMatchObject({
      requestId: headers['x-request-id'],
      client: '203.0.113.9',
    });

    const direct = appWith(false);
    const own = await direct.app.request('/ops/ai/oauth/callback', { headers });
    expect(own.headers.get('x-request-id')).not.toBe(headers['x-request-id']);
    expect(direct.log.records()[0].client).not.toBe('203.0.113.9');
  });
});
