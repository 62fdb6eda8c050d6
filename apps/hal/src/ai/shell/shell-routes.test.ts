import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestSession } from '../../../test/foundation.test-support.js';
import { requireSqlite } from '../../platform/db/database.js';
import {
  type ConnectionsTestApp,
  createConnectionsTestApp,
  databaseBytes,
} from '../connections/connection-fakes.test-support.js';
import { type FakeLoginCli, installFakeLoginCli } from './shell-fake-cli.test-support.js';
import { createShellService } from './shell-sessions.js';

const api = (suffix = '') => `/ops/api/ai${suffix}`;

let t: ConnectionsTestApp;
let session: TestSession;
let root: string;
let binDir: string;
let home: string;
let claude: FakeLoginCli;

beforeEach(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-shell-routes-'));
  binDir = path.join(root, 'bin');
  home = path.join(root, 'home');
  fs.mkdirSync(binDir);
  fs.mkdirSync(home);
  claude = installFakeLoginCli(binDir, 'claude', { code: randomBytes(6).toString('hex') });
  // Codex is installed nowhere this environment looks.
  const env = { HAL_CLI_DIRS: binDir, PATH: path.dirname(process.execPath), HOME: home };
  t = await createConnectionsTestApp({ cli: { env, homedir: home, statusTimeoutMs: 20_000 } }, (deps) => {
    deps.shells = createShellService(
      { audit: deps.audit, logger: deps.logger, clock: deps.clock, connections: deps.connections },
      { env, homedir: home, killGraceMs: 500 },
    );
  });
  session = await t.login();
});

afterEach(async () => {
  await t.close();
  fs.rmSync(root, { recursive: true, force: true });
});

interface StreamEvent {
  event: string;
  id: string;
  // biome-ignore lint/suspicious/noExplicitAny: frames of several shapes
  data: any;
}

/** Reads an SSE response until it ends, collecting its frames; `text()` is the decoded output so far. */
function readStream(response: Response) {
  const events: StreamEvent[] = [];
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const ended = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let cut = buffer.indexOf('\n\n');
      while (cut >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        cut = buffer.indexOf('\n\n');
        const fields: Record<string, string> = Object.fromEntries(
          frame
            .split('\n')
            .filter((line) => !line.startsWith(':') && line.includes(': '))
            .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
        );
        if (fields.event && fields.data) {
          events.push({ event: fields.event, id: fields.id ?? '', data: JSON.parse(fields.data) });
        }
      }
    }
  })();
  const text = () =>
    events
      .filter((event) => event.event === 'output')
      .map((event) => Buffer.from(event.data.data, 'base64').toString('utf8'))
      .join('');
  return { events, ended, text };
}

async function waitFor(condition: () => boolean, what: string, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function startLogin(extra: Record<string, unknown> = {}) {
  const started = await t.call('POST', api('/shell'), session, {
    tool: 'claude',
    command: 'login',
    ...extra,
  });
  expect(started.status, started.text).toBe(201);
  return started.body.shell as { id: string; status: string };
}

describe('login terminal routes', () => {
  it('closes the loop: a logged-out CLI connection logs in through the terminal and is active after the exit', async () => {
    const created = await t.call('POST', api('/connections'), session, {
      provider: 'local-cli',
      name: 'claude',
      auth: 'cli',
      cli: { tool: 'claude' },
    });
    const connection = created.body.connection;
    expect(connection).toMatchObject({ status: 'reauth_required', lastError: { code: 'cli_not_logged_in' } });

    const shell = await startLogin({ cols: 60, rows: 20, connectionId: connection.id });
    expect(shell).toMatchObject({ status: 'running', connectionId: connection.id });
    const stream = readStream(await t.request(api(`/shell/${shell.id}/stream`), { session }));
    await waitFor(() => stream.text().includes('Paste code here'), 'the code prompt');
    expect(stream.text()).toContain(claude.url);

    const typed = await t.request(api(`/shell/${shell.id}/input`), {
      method: 'POST',
      session,
      json: { data: `${claude.code}\r` },
    });
    expect(typed.status).toBe(204);
    await stream.ended;
    const names = stream.events.map((event) => event.event);
    expect(names.slice(-2)).toEqual(['exit', 'connection']);
    expect(stream.events.at(-2)?.data).toEqual({ exitCode: 0 });
    expect(stream.events.at(-1)?.data.connection).toMatchObject({ id: connection.id, status: 'active' });
    // Ids are a cursor: a stream resumed after the exit only gets the connection event.
    const exitId = stream.events.at(-2)?.id as string;
    const resumed = readStream(
      await t.request(api(`/shell/${shell.id}/stream`), { session, headers: { 'last-event-id': exitId } }),
    );
    await resumed.ended;
    expect(resumed.events.map((event) => event.event)).toEqual(['connection']);

    const after = await t.call('GET', api('/connections'), session);
    expect(after.body.connections.find((one: { id: string }) => one.id === connection.id)).toMatchObject({
      status: 'active',
      lastError: null,
    });
    // The ended session is no longer live, and its id refuses input.
    expect((await t.call('GET', api('/shell'), session)).body.shells).toEqual([]);
    const late = await t.call('POST', api(`/shell/${shell.id}/input`), session, { data: 'x' });
    expect(late.status).toBe(404);
    expect(late.body.error.code).toBe('shell_not_found');
    const actions = (await t.deps.audit.list({ actionPrefix: 'ai.shell' })).entries.map(
      (entry) => entry.action,
    );
    expect(actions.sort()).toEqual(['ai.shell.end', 'ai.shell.start']);
  });

  it('what is typed lands in neither the database file, the logs nor the audit log', async () => {
    const marker = `MARK${randomBytes(10).toString('hex')}`;
    const shell = await startLogin();
    const stream = readStream(await t.request(api(`/shell/${shell.id}/stream`), { session }));
    await waitFor(() => stream.text().includes('Paste code here'), 'the code prompt');
    // A second, live session gets the marker too, and is closed without an Enter.
    const open = await startLogin();
    await t.call('POST', api(`/shell/${open.id}/input`), session, { data: marker });
    expect((await t.request(api(`/shell/${open.id}`), { method: 'DELETE', session })).status).toBe(204);
    await t.call('POST', api(`/shell/${shell.id}/input`), session, { data: `${marker}\r` });
    await stream.ended;
    // The fake echoes nothing itself; the PTY echoes the typed line: proof the marker really went in.
    expect(stream.text()).toContain(marker);
    expect(stream.events.find((event) => event.event === 'exit')?.data).toEqual({ exitCode: 1 });

    requireSqlite(t.deps.database).pragma('wal_checkpoint(FULL)');
    expect(databaseBytes(t.dbFile)).not.toContain(marker);
    expect(t.logLines.join('\n')).not.toContain(marker);
    expect(t.logLines.join('\n')).toContain('login terminal started');
    const audit = await t.deps.audit.list({ limit: 200 });
    expect(audit.entries.filter((entry) => entry.action.startsWith('ai.shell.'))).toHaveLength(4);
    expect(JSON.stringify(audit.entries)).not.toContain(marker);
  });

  it('start needs a recent password entry and the CSRF token', async () => {
    t.clock.advance(t.deps.config.reauthWindowS * 1000 + 1);
    const stale = await t.call('POST', api('/shell'), session, { tool: 'claude', command: 'login' });
    expect(stale.status).toBe(401);
    expect(stale.body.error.code).toBe('reauth_required');
    // A fresh sign-in opens the window again (it is a password entry, like POST /ops/api/reauth).
    session = await t.login();
    const noCsrf = await t.request(api('/shell'), {
      method: 'POST',
      session,
      headers: { 'x-csrf-token': 'wrong' },
      json: { tool: 'claude', command: 'login' },
    });
    expect(noCsrf.status).toBe(403);
    const started = await startLogin();
    const noCsrfInput = await t.request(api(`/shell/${started.id}/input`), {
      method: 'POST',
      session,
      headers: { 'x-csrf-token': 'wrong' },
      json: { data: 'x' },
    });
    expect(noCsrfInput.status).toBe(403);
  });

  it('a fourth live session is 409 shell_limit with the three; kill-all ends them', async () => {
    const ids = [];
    for (let index = 0; index < 3; index += 1) ids.push((await startLogin()).id);
    const fourth = await t.call('POST', api('/shell'), session, { tool: 'claude', command: 'version' });
    expect(fourth.status).toBe(409);
    expect(fourth.body.error.code).toBe('shell_limit');
    expect(fourth.body.error.shells.map((shell: { id: string }) => shell.id).sort()).toEqual([...ids].sort());
    const listed = await t.call('GET', api('/shell'), session);
    expect(listed.body.shells.map((shell: { id: string }) => shell.id).sort()).toEqual([...ids].sort());
    const killed = await t.call('POST', api('/shell/kill-all'), session);
    expect(killed.status).toBe(200);
    expect(killed.body).toEqual({ killed: 3 });
    expect((await t.call('GET', api('/shell'), session)).body.shells).toEqual([]);
  });

  it("another operator's session is 404 shell_not_found on every route", async () => {
    const shell = await startLogin();
    const bob = await t.login('bob');
    for (const [method, suffix, body] of [
      ['GET', `/shell/${shell.id}/stream`, undefined],
      ['POST', `/shell/${shell.id}/input`, { data: 'x' }],
      ['POST', `/shell/${shell.id}/resize`, { cols: 80, rows: 24 }],
      ['DELETE', `/shell/${shell.id}`, undefined],
    ] as const) {
      const answer = await t.call(method, api(suffix), bob, body);
      expect(answer.status, `${method} ${suffix}`).toBe(404);
      expect(answer.body.error.code).toBe('shell_not_found');
    }
    expect((await t.call('GET', api('/shell'), bob)).body.shells).toEqual([]);
    expect((await t.call('POST', api('/shell/kill-all'), bob)).body).toEqual({ killed: 0 });
    expect((await t.call('GET', api('/shell'), session)).body.shells).toHaveLength(1);
  });

  it('bad input: unknown tool or command 400, missing CLI 409, oversized input 413, a foreign connection 400', async () => {
    for (const body of [
      { tool: 'sh', command: 'login' },
      { tool: 'claude', command: 'exec' },
      { tool: 'claude', command: 'login', args: ['--email', 'x@example.com'] },
      { tool: 'claude', command: 'login', env: { HOME: '/' } },
    ]) {
      const refused = await t.call('POST', api('/shell'), session, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.code).toBe('validation_failed');
    }
    const missing = await t.call('POST', api('/shell'), session, { tool: 'codex', command: 'login' });
    expect(missing.status).toBe(409);
    expect(missing.body.error.code).toBe('cli_not_found');

    const other = await t.call('POST', api('/connections'), session, {
      provider: 'openai',
      name: 'gpt',
      auth: 'api_key',
      apiKey: randomBytes(12).toString('hex'),
      baseUrl: 'http://127.0.0.1:9/v1',
    });
    const foreign = await t.call('POST', api('/shell'), session, {
      tool: 'claude',
      command: 'login',
      connectionId: other.body.connection.id,
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.code).toBe('validation_failed');

    const shell = await startLogin();
    const huge = await t.call('POST', api(`/shell/${shell.id}/input`), session, {
      data: 'x'.repeat(65 * 1024),
    });
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe('payload_too_large');
    const badSize = await t.call('POST', api(`/shell/${shell.id}/resize`), session, {
      cols: 'wide',
      rows: 24,
    });
    expect(badSize.status).toBe(400);
    expect(
      (await t.call('POST', api(`/shell/${shell.id}/resize`), session, { cols: 80, rows: 24 })).status,
    ).toBe(204);
  });
});
