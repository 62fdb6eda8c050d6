import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as pty from 'node-pty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConnectionsTestApp,
  createConnectionsTestApp,
} from '../../src/ai/connections/connection-fakes.test-support.js';
import { SHELL_COMMANDS } from '../../src/ai/shell/shell-commands.js';
import { type FakeLoginCli, installFakeLoginCli } from '../../src/ai/shell/shell-fake-cli.test-support.js';
import { createShellService, type PtySpawn } from '../../src/ai/shell/shell-sessions.js';
import type { TestSession } from '../foundation.test-support.js';
import { createTally, recordFigures } from './hostile-figures.test-support.js';

/*
 * The login terminal's allow-list (SPEC §8) under attack: every spawn goes through a counting wrapper around the
 * real node-pty `spawn`, and every injection attempt names a marker file a shell would create if one ever read
 * the text. Nothing may be spawned but the discovered CLI with an allow-listed, fixed argv.
 */
const api = (suffix = '') => `/ops/api/ai${suffix}`;
/** The only variable names a terminal's process may have (SPEC §8's minimal environment). */
const ALLOWED_ENV = new Set(['PATH', 'HOME', 'LANG', 'TERM', 'COLUMNS', 'LINES']);

let t: ConnectionsTestApp;
let alice: TestSession;
let bob: TestSession;
let root: string;
let marker: string;
let claude: FakeLoginCli;
const spawns: Array<{ file: string; args: string[]; env: string[] }> = [];

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-hostile-terminal-'));
  const binDir = path.join(root, 'bin');
  const home = path.join(root, 'home');
  fs.mkdirSync(binDir);
  fs.mkdirSync(home);
  marker = path.join(root, 'pwned');
  claude = installFakeLoginCli(binDir, 'claude', { code: randomBytes(6).toString('hex') });
  // HAL's own environment carries variables a child must never inherit.
  const env = {
    HAL_CLI_DIRS: binDir,
    PATH: path.dirname(process.execPath),
    HOME: home,
    LD_PRELOAD: path.join(root, 'evil.so'),
    NODE_OPTIONS: `--require ${path.join(root, 'evil.js')}`,
    BASH_ENV: path.join(root, 'evil.sh'),
  };
  fs.writeFileSync(
    path.join(root, 'evil.js'),
    `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x');`,
  );
  const spawn: PtySpawn = (file, args, options) => {
    spawns.push({ file, args: [...args], env: Object.keys(options.env ?? {}) });
    return pty.spawn(file, args, options);
  };
  t = await createConnectionsTestApp({ cli: { env, homedir: home, statusTimeoutMs: 20_000 } }, (deps) => {
    deps.shells = createShellService(
      { audit: deps.audit, logger: deps.logger, clock: deps.clock, connections: deps.connections },
      { env, homedir: home, killGraceMs: 500, spawn },
    );
  });
  alice = await t.login('alice');
  bob = await t.login('bob');
});

afterAll(async () => {
  await t?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  ms = 20_000,
): Promise<void> {
  const until = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function codeOf(body: unknown): string | undefined {
  return (body as { error?: { code?: string } } | null)?.error?.code;
}

const injections = (command: string) => [
  `${command};touch ${marker}`,
  `${command} && touch ${marker}`,
  `${command}|touch ${marker}`,
  `${command}\`touch ${marker}\``,
  `${command}$(touch ${marker})`,
  `${command}\ntouch ${marker}`,
  `${command} --settings ${marker}`,
  `${command} `,
  ` ${command}`,
  command.toUpperCase(),
  `${command}\u0000`,
];

describe('hostile: the login terminal allow-list', () => {
  it('refuses every command, tool, argument and environment outside the list, and spawns nothing', async (context) => {
    const { tally, check } = createTally();
    const bodies: unknown[] = [];
    for (const command of Object.keys(SHELL_COMMANDS.claude)) {
      for (const injected of injections(command)) bodies.push({ tool: 'claude', command: injected });
    }
    for (const command of [
      'rm',
      'sh',
      'bash',
      '/bin/sh',
      '../../../bin/sh',
      `${'x'.repeat(41)}`,
      '',
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'valueOf',
    ]) {
      bodies.push({ tool: 'claude', command });
    }
    for (const tool of [
      'sh',
      'bash',
      '/bin/sh',
      '/usr/bin/env',
      '../claude',
      'claude;sh',
      'CLAUDE',
      '__proto__',
      'constructor',
      'toString',
    ]) {
      bodies.push({ tool, command: 'login' });
    }
    for (const extra of [
      { args: ['--dangerously-skip-permissions'] },
      { argv: ['/bin/sh', '-c', `touch ${marker}`] },
      { env: { PATH: root, LD_PRELOAD: path.join(root, 'evil.so') } },
      { PATH: root },
      { LD_PRELOAD: path.join(root, 'evil.so') },
      { NODE_OPTIONS: `--require ${path.join(root, 'evil.js')}` },
      { cwd: '/' },
      { file: '/bin/sh' },
      { shell: '/bin/sh' },
      { cols: '100; touch x' },
      { cols: 1e9 },
      { rows: -1 },
      { rows: 1.5 },
      { connectionId: '' },
      { connectionId: 'x'.repeat(101) },
    ]) {
      bodies.push({ tool: 'claude', command: 'version', ...extra });
    }
    for (const odd of [
      { tool: ['claude'], command: 'version' },
      { tool: 'claude', command: ['version'] },
      { tool: 'claude', command: { toString: 'version' } },
      { tool: 'claude' },
      { command: 'version' },
      [{ tool: 'claude', command: 'version' }],
      'claude version',
      null,
    ]) {
      bodies.push(odd);
    }
    for (const body of bodies) {
      const response = await t.call('POST', api('/shell'), alice, body);
      check(
        response.status === 400 && codeOf(response.body) === 'validation_failed',
        `${JSON.stringify(body)} → ${response.status} ${codeOf(response.body)}`,
      );
    }
    // JSON texts whose parse makes own prototype keys: never an argv, an env or a cwd.
    for (const text of [
      '{"tool":"claude","command":"version","__proto__":{"args":["--help"],"env":{"LD_PRELOAD":"x"}}}',
      '{"tool":"claude","command":"version","constructor":{"prototype":{"args":["--help"]}}}',
      '{"tool":"claude","__proto__":{"command":"version"}}',
    ]) {
      const response = await t.request(api('/shell'), {
        method: 'POST',
        session: alice,
        headers: { 'content-type': 'application/json' },
        body: text,
      });
      const body = await response.json();
      check(
        response.status === 400 && codeOf(body) === 'validation_failed',
        `${text} → ${response.status} ${codeOf(body)}`,
      );
    }
    recordFigures(context, 'terminal allow-list', { ...tally, badExecutions: spawns.length });
    expect(tally.misses).toEqual([]);
    expect(spawns).toEqual([]);
    expect(fs.existsSync(marker)).toBe(false);
    expect(claude.calls()).toEqual([]);
  }, 120_000);

  it('runs an allowed command as the binary itself with its fixed argv and the minimal environment', async (context) => {
    const started = await t.call('POST', api('/shell'), alice, { tool: 'claude', command: 'version' });
    expect(started.status).toBe(201);
    const id = started.body.shell.id as string;
    await waitFor(
      async () => (await t.call('GET', api('/shell'), alice)).body.shells.length === 0,
      'the exit',
    );
    expect(spawns).toEqual([{ file: claude.file, args: ['--version'], env: expect.any(Array) }]);
    const [spawned] = spawns;
    const leaked = (spawned?.env ?? []).filter((name) => !ALLOWED_ENV.has(name));
    expect(leaked).toEqual([]);
    const [call] = claude.calls();
    expect(call?.argv).toEqual(['--version']);
    expect(
      Object.keys(call?.env ?? {}).filter(
        (name) => !ALLOWED_ENV.has(name) && name !== 'PWD' && name !== 'SHLVL' && name !== '_',
      ),
    ).toEqual([]);
    expect(fs.existsSync(marker)).toBe(false);
    // Input after the exit is refused: the session is no longer running.
    const late = await t.call('POST', api(`/shell/${id}/input`), alice, { data: 'y\r' });
    const lateResize = await t.call('POST', api(`/shell/${id}/resize`), alice, { cols: 80, rows: 24 });
    const lateEnd = await t.call('DELETE', api(`/shell/${id}`), alice);
    const { tally, check } = createTally();
    for (const [label, answer] of [
      ['input after exit', late],
      ['resize after exit', lateResize],
      ['end after exit', lateEnd],
    ] as const) {
      check(
        answer.status === 404 && codeOf(answer.body) === 'shell_not_found',
        `${label} → ${answer.status}`,
      );
    }
    recordFigures(context, 'terminal allow-list', { ...tally, badExecutions: spawns.length - 1 });
    expect(tally.misses).toEqual([]);
  }, 60_000);

  it("keeps each operator's terminal to its owner, and what is typed reaches the CLI, never a shell", async (context) => {
    const { tally, check } = createTally();
    const started = await t.call('POST', api('/shell'), alice, { tool: 'claude', command: 'login' });
    expect(started.status).toBe(201);
    const id = started.body.shell.id as string;
    const before = spawns.length;
    const foreign = [
      await t.call('POST', api(`/shell/${id}/input`), bob, { data: `touch ${marker}\r` }),
      await t.call('POST', api(`/shell/${id}/resize`), bob, { cols: 80, rows: 24 }),
      await t.call('DELETE', api(`/shell/${id}`), bob),
      { status: (await t.request(api(`/shell/${id}/stream`), { session: bob })).status, body: null },
    ];
    for (const [index, answer] of foreign.entries()) {
      check(
        answer.status === 404 && (index === 3 || codeOf(answer.body) === 'shell_not_found'),
        `bob #${index} → ${answer.status}`,
      );
    }
    const killAll = await t.call('POST', api('/shell/kill-all'), bob);
    check(
      killAll.status === 200 && killAll.body.killed === 0,
      `bob kill-all → ${JSON.stringify(killAll.body)}`,
    );
    check(
      (await t.call('GET', api('/shell'), bob)).body.shells.length === 0,
      'bob lists no terminal of alice',
    );
    expect(
      (await t.call('GET', api('/shell'), alice)).body.shells.map((shell: { id: string }) => shell.id),
    ).toEqual([id]);
    // Shell syntax typed into the login is a wrong code to the CLI, not a command.
    const typed = await t.call('POST', api(`/shell/${id}/input`), alice, {
      data: `$(touch ${marker}); touch ${marker}\r`,
    });
    expect(typed.status).toBe(204);
    await waitFor(
      async () => (await t.call('GET', api('/shell'), alice)).body.shells.length === 0,
      'the login to end',
    );
    expect(fs.existsSync(marker)).toBe(false);
    expect(claude.loggedIn(path.join(root, 'home'))).toBe(false);
    const oversized = await t.call('POST', api('/shell'), alice, { tool: 'claude', command: 'login' });
    const oversizedId = oversized.body.shell.id as string;
    const tooLarge = await t.call('POST', api(`/shell/${oversizedId}/input`), alice, {
      data: 'x'.repeat(64 * 1024 + 1),
    });
    check(
      tooLarge.status === 413 && codeOf(tooLarge.body) === 'payload_too_large',
      `oversized input → ${tooLarge.status}`,
    );
    const extra = await t.call('POST', api(`/shell/${oversizedId}/input`), alice, {
      data: 'x',
      env: { PATH: root },
    });
    check(
      extra.status === 400 && codeOf(extra.body) === 'validation_failed',
      `input with env → ${extra.status}`,
    );
    expect((await t.call('DELETE', api(`/shell/${oversizedId}`), alice)).status).toBe(204);
    recordFigures(context, 'terminal allow-list', { ...tally, badExecutions: spawns.length - before - 1 });
    expect(spawns.slice(before).map((spawn) => [spawn.file, spawn.args])).toEqual([
      [claude.file, ['auth', 'login']],
    ]);
    expect(tally.misses).toEqual([]);
  }, 60_000);
});
