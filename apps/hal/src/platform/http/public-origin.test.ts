import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/foundation.test-support.js';
import { loadConfig } from '../config.js';
import { hostnameOfHeader } from './public-origin.js';

/** One raw HTTP request with a Host header of our choosing, to a server on 127.0.0.1. */
function rawGet(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, path, method: 'GET', headers: { host } },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe('the public origin and the Host guard', () => {
  let hal: TestApp | undefined;
  afterEach(async () => {
    await hal?.close();
    hal = undefined;
  });

  it('refuses a foreign Host with 400 and serves the listen address and its loopback names (real socket)', async () => {
    hal = await createTestApp();
    const server = serve({ fetch: hal.app.fetch, hostname: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const { port } = server.address() as AddressInfo;
    try {
      for (const host of ['evil.example', `evil.example:${port}`, 'hal.attacker.test:7420', '10.0.0.1']) {
        const refused = await rawGet(port, '/api/health', host);
        expect(refused.status, host).toBe(400);
        expect(JSON.parse(refused.body).error.code).toBe('validation_failed');
      }
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'LOCALHOST']) {
        expect((await rawGet(port, '/api/health', host)).status, host).toBe(200);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('builds the OAuth callback URL from HAL_PUBLIC_URL, never from Host or forwarded headers', async () => {
    hal = await createTestApp({
      config: { publicUrl: 'https://hal.example.com', trustProxy: true },
    });
    const session = await hal.login();
    const listed = await hal.request('http://hal.example.com/ops/api/ai/connections', {
      session,
      headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' },
    });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { callbackUrl: string }).callbackUrl).toBe(
      'https://hal.example.com/ops/ai/oauth/callback',
    );
    const foreign = await hal.request('http://evil.example/ops/api/ai/connections', { session });
    expect(foreign.status).toBe(400);
  });

  it('reads HAL_PUBLIC_URL as an origin and refuses anything else', () => {
    expect(loadConfig({ HAL_PUBLIC_URL: 'https://hal.example.com/' }).publicUrl).toBe(
      'https://hal.example.com',
    );
    expect(loadConfig({}).publicUrl).toBeUndefined();
    for (const bad of [
      'ftp://hal.example.com',
      'https://user:pw@hal.example.com',
      'https://h/path',
      'nope',
    ]) {
      expect(() => loadConfig({ HAL_PUBLIC_URL: bad }), bad).toThrow(/HAL_PUBLIC_URL/);
    }
    expect(hostnameOfHeader('[::1]:80')).toBe('::1');
    expect(hostnameOfHeader('Example.COM.')).toBe('example.com');
    expect(hostnameOfHeader('a@b')).toBeNull();
  });
});
