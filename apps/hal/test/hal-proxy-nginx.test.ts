import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFakeOpenAI, type FakeServer } from '@hal-ai/providers/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/platform/config.js';
import { createLogger } from '../src/platform/logger.js';
import { type RunningServer, startServer } from '../src/server.js';
import { fakeOpenAIConnection } from './fake-connection.test-support.js';
import { openStream, requestFrom } from './hal-proxy.test-support.js';
import { readEnvironmentFile } from './hal-service-unit.test-support.js';

// HAL behind the shipped nginx example itself (issue #19 point 3), when this machine has nginx: deploy/nginx-hal.conf
// with only its listen ports, HAL's port and the certificate paths moved onto loopback and a temp folder, in front
// of HAL started with deploy/hal.env.example's environment. TLS is real (a self-signed certificate for the public
// name), and the headers, buffering and timeouts are the example's own.
const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(appDir, '../..');
const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((candidate) => fs.existsSync(candidate));
const exampleEnvironment = readEnvironmentFile(path.join(repoRoot, 'deploy/hal.env.example'));
const publicHost = new URL(exampleEnvironment.HAL_PUBLIC_URL ?? 'https://hal-public-url-unset.invalid').host;
const origin = `https://${publicHost}`;

/** A loopback port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves once something accepts connections on 127.0.0.1:`port` (nginx has no "ready" line). */
async function waitForPort(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited ${child.exitCode}: ${stderr()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(socket.end() !== undefined));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nginx does not listen on ${port}: ${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(NGINX === undefined)('HAL behind deploy/nginx-hal.conf (nginx on loopback)', () => {
  let workDir: string;
  let hal: RunningServer | undefined;
  let nginx: ChildProcess | undefined;
  let fake: FakeServer;
  let apiKey: string;
  let password = '';
  let cert = '';
  let base = '';

  beforeAll(async () => {
    workDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hal-nginx-')));
    apiKey = randomBytes(24).toString('base64url');
    fake = await createFakeOpenAI({ apiKey, models: [{ id: 'gpt-test' }] });
    const dataDir = path.join(workDir, 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    let printed = '';
    hal = await startServer({
      config: loadConfig({ ...exampleEnvironment, HAL_DATA_DIR: dataDir, HAL_PORT: '0' }),
      logger: createLogger({ level: 'silent' }),
      output: { write: (text: string) => (printed += text) },
    });
    password = /password: (\S+)/.exec(printed)?.[1] ?? '';

    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${publicHost}`,
        '-addext',
        `subjectAltName=DNS:${publicHost}`,
        '-keyout',
        path.join(workDir, 'privkey.pem'),
        '-out',
        path.join(workDir, 'fullchain.pem'),
      ],
      { stdio: 'pipe' },
    );
    cert = fs.readFileSync(path.join(workDir, 'fullchain.pem'), 'utf8');
    const [tlsPort, plainPort] = [await freePort(), await freePort()];
    const halPort = new URL(hal.url).port;
    const site = fs
      .readFileSync(path.join(repoRoot, 'deploy/nginx-hal.conf'), 'utf8')
      .replace(/^\s*listen \[::\]:\d+[^;]*;$/gm, '')
      .replace(/^(\s*listen )443( [^;]*;)$/m, `$1127.0.0.1:${tlsPort}$2`)
      .replace(/^(\s*listen )80;$/m, `$1127.0.0.1:${plainPort};`)
      .replaceAll(
        `http://${exampleEnvironment.HAL_HOST}:${exampleEnvironment.HAL_PORT}`,
        `http://127.0.0.1:${halPort}`,
      )
      .replaceAll(`/etc/letsencrypt/live/${publicHost}/`, `${workDir}/`);
    expect(site).toContain(`listen 127.0.0.1:${tlsPort} ssl`);
    expect(site).toContain(`proxy_pass http://127.0.0.1:${halPort};`);
    fs.writeFileSync(path.join(workDir, 'site.conf'), site);
    fs.mkdirSync(path.join(workDir, 'temp'));
    // The surroundings Debian's nginx.conf gives a site; as root the workers may keep root (temp files in workDir).
    fs.writeFileSync(
      path.join(workDir, 'nginx.conf'),
      [
        process.getuid?.() === 0 ? 'user root;' : '',
        'daemon off;',
        'master_process on;',
        'worker_processes 1;',
        `pid ${workDir}/nginx.pid;`,
        'error_log stderr warn;',
        'events { worker_connections 64; }',
        'http {',
        '  access_log off;',
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
          (kind) => `  ${kind}_temp_path ${workDir}/temp/${kind};`,
        ),
        `  include ${workDir}/site.conf;`,
        '}',
      ].join('\n'),
    );
    let stderr = '';
    nginx = spawn(NGINX as string, ['-p', workDir, '-e', 'stderr', '-c', path.join(workDir, 'nginx.conf')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    nginx.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    await waitForPort(tlsPort, nginx, () => stderr);
    base = `https://127.0.0.1:${tlsPort}`;
  }, 60_000);

  afterAll(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((resolve) => nginx?.once('exit', resolve));
      nginx.kill('SIGTERM');
      await exited;
    }
    await hal?.close();
    await fake?.close();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  /** A request through nginx over TLS, as a browser at `origin` sends it, from a loopback client address. */
  function through(
    pathname: string,
    init: { method?: string; headers?: Record<string, string>; body?: string; from?: string } = {},
  ) {
    return requestFrom(`${base}${pathname}`, {
      ...init,
      ca: cert,
      headers: { host: publicHost, origin, ...init.headers },
    });
  }

  function login(from: string, secret: string) {
    return through('/ops/login', {
      method: 'POST',
      from,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: secret }),
    });
  }

  it('signs in over TLS with a Secure cookie, and limits logins by the address nginx forwards', async () => {
    const signedIn = await login('127.0.0.1', password);
    expect(signedIn.status, signedIn.body).toBe(200);
    expect(String(signedIn.headers['set-cookie'])).toMatch(/hal_session=[^;]+;.*;\s*Secure/i);
    expect(signedIn.headers['strict-transport-security']).toBe('max-age=31536000');
    // nginx's $request_id reached HAL (trusted proxy) and came back as HAL's request id.
    expect(signedIn.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);

    // A client that forges X-Forwarded-For is still itself: nginx sets the header to the socket's address.
    const statuses: number[] = [];
    for (let index = 0; index < 10 && statuses.at(-1) !== 429; index++) {
      const answer = await login('127.0.0.2', randomBytes(12).toString('base64url'));
      statuses.push(answer.status);
    }
    expect(statuses.at(-1)).toBe(429);
    const forged = await through('/ops/login', {
      method: 'POST',
      from: '127.0.0.2',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '127.0.0.9' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    expect(forged.status).toBe(429);
    expect((await login('127.0.0.3', password)).status).toBe(200);
  }, 90_000);

  it("streams a room's events through the example's unbuffered location while the reply is still open", async () => {
    const signedIn = await login('127.0.0.4', password);
    const cookie = /hal_session=[^;]+/.exec(String(signedIn.headers['set-cookie']))?.[0] ?? '';
    const { csrfToken } = JSON.parse(signedIn.body) as { csrfToken: string };
    const headers = { cookie, 'x-csrf-token': csrfToken, 'content-type': 'application/json' };
    const created = await through('/ops/api/ai/connections', {
      method: 'POST',
      headers,
      body: JSON.stringify(fakeOpenAIConnection(fake.baseUrl, apiKey)),
    });
    expect(created.status, created.body).toBe(201);
    let roomId: string | undefined;
    while (roomId === undefined) {
      const rooms = JSON.parse((await through('/ops/api/ai/rooms', { headers })).body).rooms as Array<{
        id: string;
        title: string;
      }>;
      roomId = rooms.find((room) => room.title === 'GPT')?.id;
    }
    const events = await openStream(
      `${base}/ops/api/ai/rooms/${roomId}/events`,
      { host: publicHost, origin, cookie, accept: 'text/event-stream' },
      cert,
    );
    try {
      fake.enqueue({ text: 'the first words of a long answer', chunks: 4, stall: 'mid-stream' });
      const sent = await through(`/ops/api/ai/rooms/${roomId}/messages`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ text: 'hello' }),
      });
      expect(sent.status, sent.body).toBe(202);
      const turnId = (JSON.parse(sent.body) as { turns: Array<{ turnId: string }> }).turns[0]?.turnId ?? '';
      // A buffering proxy would hold these pieces until the (stalled) answer ends: they arrive while it runs.
      // (HAL's `X-Accel-Buffering: no` and the location's `proxy_buffering off` both keep nginx from buffering.)
      await events.waitFor((text) => /event: delta\n/.test(text));
      expect((await hal?.deps.ai.store.getTurn(turnId))?.status).toBe('running');
    } finally {
      events.close();
    }
  }, 90_000);
});
