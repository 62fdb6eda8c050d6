import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HalError } from '@hal-ai/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditInput } from '../../domain/audit/types.js';
import type { Operator } from '../../platform/http/env.js';
import { type FakeLoginCli, installFakeLoginCli } from './shell-fake-cli.test-support.js';
import {
  createShellService,
  type ShellEvent,
  type ShellService,
  type ShellServiceSettings,
} from './shell-sessions.js';

const alice: Operator = { id: 'op_alice', username: 'alice' };
const bob: Operator = { id: 'op_bob', username: 'bob' };

let root: string;
let binDir: string;
let home: string;
let claude: FakeLoginCli;
let audits: AuditInput[];
let logs: string[];
let service: ShellService | undefined;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-shell-'));
  binDir = path.join(root, 'bin');
  home = path.join(root, 'home');
  fs.mkdirSync(binDir);
  fs.mkdirSync(home);
  claude = installFakeLoginCli(binDir, 'claude', { code: randomBytes(6).toString('hex') });
  audits = [];
  logs = [];
});

afterEach(async () => {
  await service?.close();
  service = undefined;
  fs.rmSync(root, { recursive: true, force: true });
});

function create(settings: ShellServiceSettings = {}): ShellService {
  service = createShellService(
    {
      audit: { append: async (input) => audits.push(input) },
      logger: {
        info: (object, message) => logs.push(JSON.stringify({ ...object, message })),
        warn: (object, message) => logs.push(JSON.stringify({ ...object, message })),
      },
      clock: { now: () => Date.now() },
    },
    {
      // A parent environment with secrets in it: none of them may reach the CLI.
      env: {
        CLAUDE_BIN: claude.file,
        PATH: `/usr/bin:/bin:${path.dirname(process.execPath)}`,
        LANG: 'C.UTF-8',
        HAL_VAULT_KEY: 'not-for-the-cli',
        ANTHROPIC_API_KEY: 'not-for-the-cli',
      },
      homedir: home,
      killGraceMs: 500,
      ...settings,
    },
  );
  return service;
}

/** Follows a session: its output as text, and a promise of its exit. */
function follow(shells: ShellService, operator: Operator, id: string) {
  const events: ShellEvent[] = [];
  let resolveDone: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve;
  });
  shells.subscribe(operator, id, undefined, (event) => events.push(event), resolveDone);
  const text = () =>
    events
      .filter((event) => event.type === 'output')
      .map((event) => event.data.toString('utf8'))
      .join('');
  const exit = () => events.find((event) => event.type === 'exit');
  return { events, done, text, exit };
}

async function waitFor(condition: () => boolean, what: string, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return HalError.isInstance(error) ? error.code : String(error);
  }
  return undefined;
}

async function codeOfAsync(run: () => Promise<unknown>): Promise<HalError> {
  try {
    await run();
  } catch (error) {
    if (HalError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a HalError');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the login terminal runs the allow-listed command in a real PTY', () => {
  it('claude login: the URL arrives whole, the right code logs in, exit 0, argv/cwd/env are the fixed ones', async () => {
    const shells = create();
    const shell = await shells.start(alice, { tool: 'claude', command: 'login', cols: 60, rows: 20 });
    expect(shell).toMatchObject({ tool: 'claude', command: 'login', status: 'running', exitCode: null });
    const run = follow(shells, alice, shell.id);
    await waitFor(() => run.text().includes('Paste code here'), 'the code prompt');
    expect(run.text()).toContain(claude.url);

    shells.input(alice, shell.id, { data: `${claude.code}\r` });
    await run.done;
    expect(run.exit()).toMatchObject({ exitCode: 0 });
    expect(run.text()).toContain('Login successful.');
    expect(claude.loggedIn(home)).toBe(true);

    const call = claude.calls().at(-1);
    expect(call?.argv).toEqual(['auth', 'login']);
    expect(fs.realpathSync(call?.cwd ?? '')).toBe(fs.realpathSync(home));
    // node-pty adds PWD (the working folder) itself.
    expect(Object.keys(call?.env ?? {}).sort()).toEqual([
      'COLUMNS',
      'HOME',
      'LANG',
      'LINES',
      'PATH',
      'PWD',
      'TERM',
    ]);
    expect(call?.env).toMatchObject({ HOME: home, COLUMNS: '60', LINES: '20', TERM: 'xterm-256color' });

    expect(shells.list(alice)).toEqual([]);
    expect(audits.map((entry) => entry.action)).toEqual(['ai.shell.start', 'ai.shell.end']);
    expect(audits[1]).toMatchObject({
      actor: 'operator:op_alice',
      target: `shell:${shell.id}`,
      details: { reason: 'exited', exitCode: 0 },
    });
  });

  it('a wrong code fails the login (exit 1) and the typed text is in no log line or audit entry', async () => {
    const shells = create();
    const shell = await shells.start(alice, { tool: 'claude', command: 'login' });
    const run = follow(shells, alice, shell.id);
    await waitFor(() => run.text().includes('Paste code here'), 'the code prompt');
    const marker = `MARK${randomBytes(8).toString('hex')}`;
    shells.input(alice, shell.id, { data: `${marker}\r` });
    await run.done;
    expect(run.exit()).toMatchObject({ exitCode: 1 });
    expect(claude.loggedIn(home)).toBe(false);
    expect(JSON.stringify(audits)).not.toContain(marker);
    expect(logs.join('\n')).not.toContain(marker);
  });

  it('resize reaches the PTY; the default size is 100×30', async () => {
    const shells = create();
    const shell = await shells.start(alice, { tool: 'claude', command: 'interactive' });
    await waitFor(() => claude.helperPid() !== undefined, 'the interactive fake');
    expect(claude.calls().at(-1)?.env).toMatchObject({ COLUMNS: '100', LINES: '30' });
    shells.resize(alice, shell.id, { cols: 80, rows: 24 });
    expect(codeOf(() => shells.resize(alice, shell.id, { cols: 80 }))).toBe('validation_failed');
    expect(codeOf(() => shells.resize(alice, shell.id, { cols: 80, rows: 24, extra: 1 }))).toBe(
      'validation_failed',
    );
  });

  it('ending a session kills its whole process group', async () => {
    const shells = create();
    const shell = await shells.start(alice, { tool: 'claude', command: 'interactive' });
    await waitFor(() => claude.helperPid() !== undefined, 'the helper');
    const helper = claude.helperPid() as number;
    expect(alive(helper)).toBe(true);
    await shells.end(alice, shell.id);
    await waitFor(() => !alive(helper), 'the helper to die', 5000);
    expect(audits.at(-1)).toMatchObject({ action: 'ai.shell.end', details: { reason: 'closed' } });
  });
});

describe('limits', () => {
  it('a fourth live session is refused with shell_limit listing the three; an ended one frees its place', async () => {
    const shells = create();
    const started = [];
    for (let index = 0; index < 3; index += 1) {
      started.push(await shells.start(alice, { tool: 'claude', command: 'login' }));
    }
    const refused = await codeOfAsync(() => shells.start(alice, { tool: 'claude', command: 'login' }));
    expect(refused.code).toBe('shell_limit');
    expect(refused.status).toBe(409);
    expect((refused.details.shells as Array<{ id: string }>).map((shell) => shell.id).sort()).toEqual(
      started.map((shell) => shell.id).sort(),
    );
    // Another operator has places of their own.
    await shells.start(bob, { tool: 'claude', command: 'login' });

    // A process that ended by itself no longer counts.
    const first = started[0]?.id as string;
    const run = follow(shells, alice, first);
    await waitFor(() => run.text().includes('Paste code here'), 'the code prompt');
    shells.input(alice, first, { data: 'wrong\r' });
    await run.done;
    const fourth = await shells.start(alice, { tool: 'claude', command: 'login' });
    expect(shells.list(alice).map((shell) => shell.id)).toContain(fourth.id);
    expect(shells.list(alice)).toHaveLength(3);
  });

  it('three starts at once and a fourth: exactly one is refused', async () => {
    const shells = create();
    const results = await Promise.allSettled(
      [0, 1, 2, 3].map(() => shells.start(alice, { tool: 'claude', command: 'login' })),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(3);
    const rejected = results.filter((result) => result.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect((rejected[0] as PromiseRejectedResult).reason.code).toBe('shell_limit');
  });

  it('an idle session is ended after idleMs', async () => {
    const shells = create({ idleMs: 300 });
    const shell = await shells.start(alice, { tool: 'claude', command: 'login' });
    const run = follow(shells, alice, shell.id);
    await run.done;
    expect(shells.list(alice)).toEqual([]);
    expect(audits.at(-1)).toMatchObject({ action: 'ai.shell.end', details: { reason: 'idle' } });
  });

  it('typing keeps a session from going idle, but never past maxDurationMs', async () => {
    const shells = create({ idleMs: 60_000, maxDurationMs: 600 });
    const shell = await shells.start(alice, { tool: 'claude', command: 'interactive' });
    const run = follow(shells, alice, shell.id);
    const typing = setInterval(() => {
      try {
        shells.input(alice, shell.id, { data: 'x' });
      } catch {
        // Ended.
      }
    }, 50);
    await run.done;
    clearInterval(typing);
    expect(audits.at(-1)).toMatchObject({ action: 'ai.shell.end', details: { reason: 'max_duration' } });
  });

  it('kill-all ends every live session of the operator and only theirs', async () => {
    const shells = create();
    for (let index = 0; index < 3; index += 1)
      await shells.start(alice, { tool: 'claude', command: 'login' });
    const bobs = await shells.start(bob, { tool: 'claude', command: 'login' });
    expect(await shells.endAll(alice)).toBe(3);
    expect(shells.list(alice)).toEqual([]);
    expect(shells.list(bob).map((shell) => shell.id)).toEqual([bobs.id]);
    expect(
      audits.filter((entry) => (entry.details as { reason?: string }).reason === 'kill_all'),
    ).toHaveLength(3);
  });

  it('close() (HAL stopping) ends every session and waits for the audit entries', async () => {
    const shells = create();
    await shells.start(alice, { tool: 'claude', command: 'login' });
    await shells.start(bob, { tool: 'claude', command: 'interactive' });
    await shells.close();
    expect(audits.filter((entry) => entry.action === 'ai.shell.end')).toHaveLength(2);
    expect(
      audits.every(
        (entry) =>
          entry.action !== 'ai.shell.end' || (entry.details as { reason: string }).reason === 'shutdown',
      ),
    ).toBe(true);
    await expect(shells.start(alice, { tool: 'claude', command: 'login' })).rejects.toThrow(/stopping/);
  });
});

describe('refusals', () => {
  it('only the allow-list runs: unknown tools, commands and any extra field are validation_failed', async () => {
    const shells = create();
    const bodies: unknown[] = [
      { tool: 'bash', command: 'login' },
      { tool: 'claude', command: 'rm' },
      { tool: 'claude', command: 'constructor' },
      { tool: 'codex', command: 'login_console' },
      { tool: 'claude', command: 'login', args: ['--sso'] },
      { tool: 'claude', command: 'login', env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:1' } },
      { tool: 'claude', command: 'login', cwd: '/' },
      { tool: 'claude', command: 'login', path: '/bin/sh' },
      { tool: 'claude', command: 'login', cols: 1e9 },
      { tool: 'claude' },
      'claude login',
    ];
    for (const body of bodies) {
      const error = await codeOfAsync(() => shells.start(alice, body));
      expect(error.code, JSON.stringify(body)).toBe('validation_failed');
    }
    expect(claude.calls()).toEqual([]);
    expect(audits).toEqual([]);
  });

  it('a CLI that is not found → cli_not_found (409)', async () => {
    const shells = create({ env: { PATH: '/nonexistent' }, homedir: home });
    const error = await codeOfAsync(() => shells.start(alice, { tool: 'codex', command: 'login' }));
    expect(error.code).toBe('cli_not_found');
    expect(error.status).toBe(409);
  });

  it("another operator's or an ended session is shell_not_found; oversized input is payload_too_large", async () => {
    const shells = create({ maxInputBytes: 1024 });
    const shell = await shells.start(alice, { tool: 'claude', command: 'login' });
    expect(codeOf(() => shells.input(bob, shell.id, { data: 'x' }))).toBe('shell_not_found');
    expect(codeOf(() => shells.get(bob, shell.id))).toBe('shell_not_found');
    await expect(shells.end(bob, shell.id)).rejects.toMatchObject({ code: 'shell_not_found' });
    expect(codeOf(() => shells.input(alice, shell.id, { data: 'é'.repeat(513) }))).toBe('payload_too_large');
    expect(codeOf(() => shells.input(alice, shell.id, { data: 1 }))).toBe('validation_failed');
    await shells.end(alice, shell.id);
    expect(codeOf(() => shells.input(alice, shell.id, { data: 'x' }))).toBe('shell_not_found');
    expect(codeOf(() => shells.resize(alice, shell.id, { cols: 80, rows: 24 }))).toBe('shell_not_found');
    await expect(shells.end(alice, shell.id)).rejects.toMatchObject({ code: 'shell_not_found' });
    expect(codeOf(() => shells.input(alice, 'sh_unknown', { data: 'x' }))).toBe('shell_not_found');
  });
});
