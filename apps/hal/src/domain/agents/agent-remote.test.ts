import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createFakeProxy } from '@hal-ai/providers/testing';
import { HalError } from '@hal-ai/spec';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli.js';
import type { ArtifactRef } from '../core/agent.js';
import { runAgentCommand } from './agent-command.js';
import { createAgentDirectory } from './agent-directory.js';
import { createLocalAgent } from './agent-local.js';
import { runAgentLoop } from './agent-loop.js';
import { createAgentQueue } from './agent-queue.js';
import { createRemoteAgent } from './agent-remote.js';
import { createAgentRoutes } from './agent-routes.js';
import { createAgentToken, createStaticAgentTokenResolver, hashAgentToken } from './agent-token.js';

let work: string;
let halUrl: string;
let server: ReturnType<typeof serve>;
const queue = createAgentQueue({ pickupTimeoutMs: 1500 });
const tokens = { a: createAgentToken(), b: createAgentToken(), cli: createAgentToken() };
const resolveAgentToken = createStaticAgentTokenResolver([
  { serverId: 'srv-a', tokenHash: hashAgentToken(tokens.a) },
  { serverId: 'srv-b', tokenHash: hashAgentToken(tokens.b) },
  { serverId: 'srv-cli', tokenHash: hashAgentToken(tokens.cli) },
]);
const loops: Array<{ stop: AbortController; done: Promise<void>; logs: string[]; dataDir: string }> = [];

function startLoop(token: string, name: string, fetchImpl?: typeof fetch) {
  const stop = new AbortController();
  const logs: string[] = [];
  const dataDir = path.join(work, `agent-${name}`);
  const done = runAgentLoop({
    halUrl,
    token,
    dataDir,
    signal: stop.signal,
    log: (line) => logs.push(line),
    waitS: 2,
    backoff: { initialMs: 20, maxMs: 100 },
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
  const loop = { stop, done, logs, dataDir };
  loops.push(loop);
  return loop;
}

async function makeArtifact(module: string, version: string, text: string): Promise<ArtifactRef> {
  const source = path.join(work, `src-${module}-${version}`);
  await fs.promises.mkdir(source, { recursive: true });
  await fs.promises.writeFile(path.join(source, 'index.html'), text);
  const file = path.join(work, 'hal-artifacts', `${module}-${version}.tar.gz`);
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  await tar.create({ gzip: true, file, cwd: source, portable: true }, ['index.html']);
  const bytes = await fs.promises.readFile(file);
  return {
    module,
    version,
    path: file,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    size: bytes.length,
  };
}

function current(dataDir: string, serverId: string, module: string): string | null {
  try {
    return fs.readlinkSync(path.join(dataDir, 'agents', serverId, module, 'current'));
  } catch {
    return null;
  }
}

async function rejection(promise: Promise<unknown>): Promise<HalError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(HalError.isInstance(error), `expected a HalError, got ${String(error)}`).toBe(true);
  return error as HalError;
}

beforeAll(async () => {
  work = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'hal-agent-remote-'));
  const app = new Hono();
  app.route('/agent/api', createAgentRoutes({ agents: { remote: { queue, resolveAgentToken } } }));
  server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  halUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const loop of loops) loop.stop.abort();
  await Promise.allSettled(loops.map((loop) => loop.done));
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
  });
  await fs.promises.rm(work, { recursive: true, force: true });
});

describe('remote agents over HTTP (pull model)', () => {
  it('serves two agents, each acting only on its own machine folder', async () => {
    const loopA = startLoop(tokens.a, 'a');
    const loopB = startLoop(tokens.b, 'b');
    const agents = createAgentDirectory({
      local: createLocalAgent({ serverId: 'hal-local', dataDir: path.join(work, 'hal') }),
      remote: { queue, resolveAgentToken },
    });
    const remoteA = agents.get('srv-a');
    const remoteB = agents.get('srv-b');
    if (!remoteA || !remoteB) throw new Error('directory has no remote agents');
    expect(agents.get('hal-local')).toBe(agents.local);

    const [metricsA, metricsB] = await Promise.all([remoteA.metrics(), remoteB.metrics()]);
    for (const metrics of [metricsA, metricsB]) {
      expect(metrics.memory.totalBytes).toBeGreaterThan(0);
      expect(metrics.disk.totalBytes).toBeGreaterThan(0);
      expect(metrics.load).toHaveLength(3);
    }

    const v1 = await makeArtifact('portal', '1.0.0', 'one');
    const v2 = await makeArtifact('portal', '2.0.0', 'two');
    const logs: string[] = [];
    expect(await remoteA.deploy(v1, (line) => logs.push(line))).toEqual({ current: '1.0.0', previous: null });
    expect(logs.some((line) => line.includes('sha256 verified'))).toBe(true);
    expect(current(loopA.dataDir, 'srv-a', 'portal')).toBe('1.0.0');
    expect(current(loopB.dataDir, 'srv-b', 'portal')).toBeNull();

    expect(await remoteB.deploy(v2, () => {})).toEqual({ current: '2.0.0', previous: null });
    expect(current(loopB.dataDir, 'srv-b', 'portal')).toBe('2.0.0');
    expect(current(loopA.dataDir, 'srv-a', 'portal')).toBe('1.0.0');

    expect(await remoteA.deploy(v2, () => {})).toEqual({ current: '2.0.0', previous: '1.0.0' });
    expect(current(loopA.dataDir, 'srv-a', 'portal')).toBe('2.0.0');
    expect(await remoteA.rollback('portal', () => {})).toEqual({ current: '1.0.0', previous: '2.0.0' });
    expect(current(loopA.dataDir, 'srv-a', 'portal')).toBe('1.0.0');
    expect(
      fs.readFileSync(path.join(loopA.dataDir, 'agents', 'srv-a', 'portal', 'current', 'index.html'), 'utf8'),
    ).toBe('one');
    expect(current(loopB.dataDir, 'srv-b', 'portal')).toBe('2.0.0');

    expect(await remoteA.modules()).toEqual([{ module: 'portal', current: '1.0.0', previous: '2.0.0' }]);
    expect(await remoteB.health('portal')).toMatchObject({ ok: true });
    // The agent's own refusal travels back with its stable code.
    const refused = await rejection(remoteB.rollback('portal', () => {}));
    expect(refused.code).toBe('invalid_state');
    // Downloads left nothing behind.
    expect(fs.readdirSync(path.join(loopA.dataDir, 'agents', 'srv-a', '.downloads'))).toEqual([]);
  });

  it('refuses a wrong or missing token with 401, and an artifact no deploy asked for with 404', async () => {
    const wrong = await fetch(`${halUrl}/agent/api/next?waitS=0`, {
      headers: { authorization: `Bearer ${createAgentToken()}` },
    });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('unauthenticated');
    const missing = await fetch(`${halUrl}/agent/api/next?waitS=0`);
    expect(missing.status).toBe(401);
    const result = await fetch(`${halUrl}/agent/api/results/anything`, {
      method: 'POST',
      headers: { authorization: `Bearer ${createAgentToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ok: true, logs: [] }),
    });
    expect(result.status).toBe(401);

    const unasked = await fetch(`${halUrl}/agent/api/artifacts/portal/1.0.0`, {
      headers: { authorization: `Bearer ${tokens.a}` },
    });
    expect(unasked.status).toBe(404);
    const foreign = await fetch(`${halUrl}/agent/api/results/not-a-command`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.a}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ok: true, logs: [] }),
    });
    expect(foreign.status).toBe(404);

    // An agent whose token HAL refuses stops with `unauthenticated` instead of retrying forever.
    const stop = new AbortController();
    const refused = await rejection(
      runAgentLoop({ halUrl, token: createAgentToken(), dataDir: path.join(work, 'x'), signal: stop.signal }),
    );
    expect(refused.code).toBe('unauthenticated');
  });

  it('fails a call with agent_unavailable once the agent has stopped', async () => {
    const token = createAgentToken();
    const localQueue = createAgentQueue({ pickupTimeoutMs: 1000, resultTimeoutMs: { metrics: 3000 } });
    const app = new Hono();
    app.route(
      '/agent/api',
      createAgentRoutes({
        agents: {
          remote: {
            queue: localQueue,
            resolveAgentToken: createStaticAgentTokenResolver([
              { serverId: 'srv-c', tokenHash: hashAgentToken(token) },
            ]),
          },
        },
      }),
    );
    const own = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => own.once('listening', () => resolve()));
    try {
      const stop = new AbortController();
      const done = runAgentLoop({
        halUrl: `http://127.0.0.1:${(own.address() as AddressInfo).port}`,
        token,
        dataDir: path.join(work, 'agent-c'),
        signal: stop.signal,
        waitS: 2,
      });
      const remote = createRemoteAgent({ serverId: 'srv-c', queue: localQueue });
      expect((await remote.metrics()).memory.totalBytes).toBeGreaterThan(0);
      stop.abort();
      await done;

      const error = await rejection(remote.metrics());
      expect(error.code).toBe('agent_unavailable');
      expect(error.status).toBe(409);
    } finally {
      await new Promise<void>((resolve) => {
        own.close(() => resolve());
        (own as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    }
  });

  it('keeps retrying with backoff while HAL is unreachable, then serves', async () => {
    let failures = 0;
    const flaky: typeof fetch = (input, init) => {
      if (failures < 2) {
        failures += 1;
        return Promise.reject(new TypeError('fetch failed'));
      }
      return fetch(input, init);
    };
    const token = createAgentToken();
    const serverId = 'srv-flaky';
    const flakyQueue = createAgentQueue({ pickupTimeoutMs: 10_000 });
    const app = new Hono();
    app.route(
      '/agent/api',
      createAgentRoutes({
        agents: {
          remote: {
            queue: flakyQueue,
            resolveAgentToken: createStaticAgentTokenResolver([
              { serverId, tokenHash: hashAgentToken(token) },
            ]),
          },
        },
      }),
    );
    const own = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => own.once('listening', () => resolve()));
    const stop = new AbortController();
    const logs: string[] = [];
    const done = runAgentLoop({
      halUrl: `http://127.0.0.1:${(own.address() as AddressInfo).port}`,
      token,
      dataDir: path.join(work, 'agent-flaky'),
      signal: stop.signal,
      waitS: 2,
      log: (line) => logs.push(line),
      backoff: { initialMs: 10, maxMs: 50 },
      fetch: flaky,
    });
    try {
      const modules = await createRemoteAgent({ serverId, queue: flakyQueue }).modules();
      expect(modules).toEqual([]);
      expect(logs.filter((line) => line.includes('retrying in'))).toHaveLength(2);
      expect(logs).toContain('connected to HAL');
    } finally {
      stop.abort();
      await done;
      await new Promise<void>((resolve) => {
        own.close(() => resolve());
        (own as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    }
  });

  it('runs as the `hal agent` command: usage errors, refused token, clean stop on a signal', async () => {
    const output: string[] = [];
    const stderr = (text: string) => output.push(text);
    expect(await runAgentCommand(['--token', tokens.a], { stderr, env: {} })).toBe(2);
    expect(output.join('')).toContain('usage: hal agent');

    const refused = await runAgentCommand(['--hal', halUrl, '--data-dir', path.join(work, 'cmd')], {
      stderr,
      env: { HAL_AGENT_TOKEN: createAgentToken() },
      onStop: () => () => {},
    });
    expect(refused).toBe(1);
    expect(output.join('')).toContain('unauthenticated');

    let stop: (() => void) | undefined;
    let unsubscribed = false;
    const running = runAgentCommand(
      ['--hal', halUrl, '--token', tokens.b, '--data-dir', path.join(work, 'cmd')],
      {
        stderr,
        env: {},
        onStop: (handler) => {
          stop = handler;
          return () => {
            unsubscribed = true;
          };
        },
        loop: { waitS: 1 },
      },
    );
    await expect.poll(() => output.join('').includes('agent polling'), { timeout: 15_000 }).toBe(true);
    stop?.();
    expect(await running).toBe(0);
    expect(unsubscribed).toBe(true);
    expect(output.join('')).toContain('agent stopped');
  });

  it('`hal agent` reaches HAL through HTTP_PROXY of its environment (NO_PROXY emptied for loopback)', async () => {
    const proxy = await createFakeProxy();
    try {
      const refused = await runAgentCommand(['--hal', halUrl, '--data-dir', path.join(work, 'proxied')], {
        stderr: () => {},
        env: { HAL_AGENT_TOKEN: createAgentToken(), HTTP_PROXY: proxy.url, NO_PROXY: '' },
        onStop: () => () => {},
      });
      expect(refused).toBe(1);
      expect(proxy.requests).toContainEqual({ method: 'CONNECT', target: new URL(halUrl).host });
    } finally {
      await proxy.close();
    }
  });

  it('is registered in the hal command table and stops on its stop signal', async () => {
    const help: string[] = [];
    expect(await runCli(['--help'], { stdout: { write: (text: string) => help.push(text) } })).toBe(0);
    expect(help.join('')).toContain('hal agent --hal <url> --token <token>');

    const output: string[] = [];
    let stop: (signal: string) => void = () => {};
    const stopSignal = new Promise<string>((resolve) => {
      stop = resolve;
    });
    const running = runCli(
      ['agent', '--hal', halUrl, '--token', tokens.cli, '--data-dir', path.join(work, 'cli')],
      {
        env: {},
        stderr: { write: (text: string) => output.push(text) },
        stopSignal,
      },
    );
    await expect.poll(() => queue.lastSeen('srv-cli'), { timeout: 15_000 }).not.toBeNull();
    stop('SIGTERM');
    expect(await running).toBe(0);
    // `hal agent` logs like `hal serve`: pino JSON lines (stderr here is no terminal), named hal-agent.
    const records = output
      .join('')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    expect(records).toContainEqual(
      expect.objectContaining({ name: 'hal-agent', msg: 'agent stopped', level: 30 }),
    );
  });
});
