import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFakeOpenAI, type FakeServer } from '@hal-ai/providers/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/platform/config.js';
import { createLogger } from '../src/platform/logger.js';
import { type RunningServer, startServer } from '../src/server.js';
import { fakeOpenAIConnection } from './fake-connection.test-support.js';
import { openStream, type ReverseProxy, requestFrom, startReverseProxy } from './hal-proxy.test-support.js';
import { readEnvironmentFile } from './hal-service-unit.test-support.js';

const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(appDir, '../..');
/** The environment an operator installs as /etc/hal/hal.env: what HAL runs with here, too. */
const exampleEnvironment = readEnvironmentFile(path.join(repoRoot, 'deploy/hal.env.example'));
/** The name browsers use: the example's HAL_PUBLIC_URL (the nginx example's server_name). */
const publicHost = new URL(exampleEnvironment.HAL_PUBLIC_URL ?? 'https://hal-public-url-unset.invalid').host;

// HAL behind a reverse proxy on loopback (issue #19 point 3): a real proxy in front of a real `hal serve`, clients
// connecting to the proxy from different loopback addresses.
let dataDir: string;
let proxy: ReverseProxy;
let hal: RunningServer | undefined;
let password: string;

beforeEach(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-proxy-'));
  proxy = await startReverseProxy();
});

afterEach(async () => {
  await hal?.close();
  hal = undefined;
  await proxy.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/**
 * Starts HAL behind the proxy with deploy/hal.env.example's environment — only the data folder and the port (0)
 * are the test's own; `trustProxy: false` removes `HAL_TRUST_PROXY`. Returns the origin browsers send: the
 * example's public name, https when TLS ends at a trusted proxy.
 */
async function startBehindProxy(trustProxy: boolean): Promise<string> {
  const env: Record<string, string> = { ...exampleEnvironment, HAL_DATA_DIR: dataDir, HAL_PORT: '0' };
  if (!trustProxy) delete env.HAL_TRUST_PROXY;
  let printed = '';
  hal = await startServer({
    config: loadConfig(env),
    logger: createLogger({ level: 'silent' }),
    output: { write: (text: string) => (printed += text) },
  });
  password = /password: (\S+)/.exec(printed)?.[1] ?? '';
  proxy.target = hal.url;
  return `${trustProxy ? 'https' : 'http'}://${publicHost}`;
}

function login(origin: string, from: string, secret: string) {
  return requestFrom(`${proxy.url}/ops/login`, {
    method: 'POST',
    from,
    headers: { host: publicHost, 'content-type': 'application/json', origin },
    body: JSON.stringify({ username: 'admin', password: secret }),
  });
}

/** Wrong passwords for `admin` from one client address until HAL answers 429 (at most `tries`); the statuses. */
async function guess(origin: string, from: string, tries: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let index = 0; index < tries; index++) {
    const answer = await login(origin, from, randomBytes(12).toString('base64url'));
    statuses.push(answer.status);
    if (answer.status === 429) break;
  }
  return statuses;
}

describe('HAL behind a reverse proxy with HAL_TRUST_PROXY', () => {
  let fake: FakeServer;
  let apiKey: string;

  beforeEach(async () => {
    apiKey = randomBytes(24).toString('base64url');
    fake = await createFakeOpenAI({ apiKey, models: [{ id: 'gpt-test' }] });
  });
  afterEach(async () => {
    await fake.close();
  });

  it('sets the session cookie Secure and limits logins by the forwarded client address', async () => {
    const origin = await startBehindProxy(true);
    const signedIn = await login(origin, '127.0.0.1', password);
    expect(signedIn.status).toBe(200);
    const cookie = String(signedIn.headers['set-cookie']);
    expect(cookie).toMatch(/hal_session=/);
    expect(cookie).toMatch(/;\s*Secure/i);
    // TLS ends at the trusted proxy: the answer carries HSTS.
    expect(signedIn.headers['strict-transport-security']).toBe('max-age=31536000');

    // Two clients behind the same proxy: the first is limited, the second is not (its own forwarded address).
    const first = await guess(origin, '127.0.0.2', 10);
    expect(first.at(-1)).toBe(429);
    expect(first.slice(0, -1).every((status) => status === 401)).toBe(true);
    expect((await login(origin, '127.0.0.2', password)).status).toBe(429);
    expect(await guess(origin, '127.0.0.3', 1)).toEqual([401]);
    expect((await login(origin, '127.0.0.3', password)).status).toBe(200);
  }, 60_000);

  it('passes a streamed reply through in pieces: a delta arrives while the provider still holds the answer open', async () => {
    const origin = await startBehindProxy(true);
    const signedIn = await login(origin, '127.0.0.1', password);
    const cookie = /hal_session=[^;]+/.exec(String(signedIn.headers['set-cookie']))?.[0] ?? '';
    const { csrfToken } = JSON.parse(signedIn.body) as { csrfToken: string };
    const headers = {
      host: publicHost,
      cookie,
      'x-csrf-token': csrfToken,
      origin,
      'content-type': 'application/json',
    };
    const created = await requestFrom(`${proxy.url}/ops/api/ai/connections`, {
      method: 'POST',
      headers,
      body: JSON.stringify(fakeOpenAIConnection(fake.baseUrl, apiKey)),
    });
    expect(created.status, created.body).toBe(201);
    let roomId: string | undefined;
    while (roomId === undefined) {
      const rooms = JSON.parse((await requestFrom(`${proxy.url}/ops/api/ai/rooms`, { headers })).body)
        .rooms as Array<{
        id: string;
        title: string;
      }>;
      roomId = rooms.find((room) => room.title === 'GPT')?.id;
    }
    const events = await openStream(`${proxy.url}/ops/api/ai/rooms/${roomId}/events`, {
      host: publicHost,
      cookie,
      origin,
      accept: 'text/event-stream',
    });
    try {
      // The provider sends the first pieces, then holds its answer open: nothing ends the stream.
      fake.enqueue({ text: 'the first words of a long answer', chunks: 4, stall: 'mid-stream' });
      const sent = await requestFrom(`${proxy.url}/ops/api/ai/rooms/${roomId}/messages`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ text: 'hello' }),
      });
      expect(sent.status, sent.body).toBe(202);
      const turnId = (JSON.parse(sent.body) as { turns: Array<{ turnId: string }> }).turns[0]?.turnId ?? '';
      const received = await events.waitFor((text) => /event: delta\n/.test(text));
      // The reply is still being written: the turn runs, and no final message went out yet.
      expect((await hal?.deps.ai.store.getTurn(turnId))?.status).toBe('running');
      const turnFrames = received.split('\n\n').filter((frame) => frame.startsWith('event: turn\n'));
      expect(turnFrames.some((frame) => frame.includes('"status":"complete"'))).toBe(false);
    } finally {
      events.close();
    }
  }, 60_000);
});

describe('HAL behind a reverse proxy without HAL_TRUST_PROXY', () => {
  it('ignores the forwarded headers: no Secure cookie, and every client is the proxy for the login limit', async () => {
    const origin = await startBehindProxy(false);
    const signedIn = await login(origin, '127.0.0.1', password);
    expect(signedIn.status).toBe(200);
    expect(String(signedIn.headers['set-cookie'])).not.toMatch(/;\s*Secure/i);
    // The proxy's X-Forwarded-Proto is not trusted: plain http to HAL, no HSTS.
    expect(signedIn.headers['strict-transport-security']).toBeUndefined();
    const first = await guess(origin, '127.0.0.2', 10);
    expect(first.at(-1)).toBe(429);
    // Another client, the same socket peer (the proxy): limited too.
    expect(await guess(origin, '127.0.0.3', 1)).toEqual([429]);
  }, 60_000);
});

describe('deploy/hal.env.example and deploy/nginx-hal.conf', () => {
  it('name the same public host and the same loopback port for HAL', () => {
    const nginx = fs.readFileSync(path.join(repoRoot, 'deploy/nginx-hal.conf'), 'utf8');
    const serverNames = new Set(
      [...nginx.matchAll(/^\s*server_name\s+([^;\s]+);/gm)].map((match) => match[1]),
    );
    // The proxy keeps the browser's Host: HAL must know it as its public name, or it answers 400.
    expect([...serverNames]).toEqual([publicHost]);
    expect(exampleEnvironment.HAL_PUBLIC_URL).toBe(`https://${publicHost}`);
    const upstreams = new Set([...nginx.matchAll(/proxy_pass\s+([^;\s]+);/g)].map((match) => match[1]));
    expect([...upstreams]).toEqual([`http://${exampleEnvironment.HAL_HOST}:${exampleEnvironment.HAL_PORT}`]);
  });
});
