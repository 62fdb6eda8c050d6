import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliContext, commands, runCli } from './cli.js';
import { ENVIRONMENT_VARIABLES } from './cli-environment.js';
import { authenticateOperator } from './domain/auth/auth-operators.js';
import { openDatabase } from './platform/db/database.js';

let dataDir: string;
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-cli-'));
});
afterEach(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function hal(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    env: { HAL_DATA_DIR: dataDir },
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stopSignal: new Promise<string>(() => undefined),
  });
  return { code, stdout, stderr };
}

async function canLogIn(username: string, password: string): Promise<boolean> {
  const { db, close } = openDatabase(path.join(dataDir, 'hal.db'));
  try {
    return (await authenticateOperator(db, username, password)) !== null;
  } finally {
    await close();
  }
}

describe('hal command', () => {
  it('creates an operator and prints its one-time password', async () => {
    const created = await hal('admin', 'create-operator', 'bob');
    expect(created.code).toBe(0);
    const match = /^operator: bob\npassword: (\S+)\n$/.exec(created.stdout);
    expect(match).not.toBeNull();
    expect(await canLogIn('bob', match?.[1] ?? '')).toBe(true);

    const again = await hal('admin', 'create-operator', 'bob');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
  });

  it('resets a password: the old one stops working', async () => {
    const created = await hal('admin', 'create-operator', 'bob');
    const oldPassword = /password: (\S+)/.exec(created.stdout)?.[1] ?? '';
    const reset = await hal('admin', 'reset-password', 'bob');
    expect(reset.code).toBe(0);
    const newPassword = /password: (\S+)/.exec(reset.stdout)?.[1] ?? '';
    expect(newPassword).not.toBe(oldPassword);
    expect(await canLogIn('bob', oldPassword)).toBe(false);
    expect(await canLogIn('bob', newPassword)).toBe(true);
    expect((await hal('admin', 'reset-password', 'nobody')).code).toBe(1);
  });

  it('migrates the database and says what it applied', async () => {
    const result = await hal('db', 'migrate');
    expect(result.code).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'hal.db'))).toBe(true);
    expect(result.stdout).toMatch(/^applied \d+ migrations:\n {2}0001-foundation\n/);
    const again = await hal('db', 'migrate');
    expect(again.stdout).toBe('database is up to date: no migration applied\n');
  });

  it('prints help and version, and refuses unknown commands with usage on stderr and exit 2', async () => {
    const help = await hal('--help');
    expect(help.code).toBe(0);
    for (const command of Object.values(commands)) expect(help.stdout).toContain(`hal ${command.usage}`);
    const version = await hal('--version');
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
    const unknown = await hal('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Usage:');
    expect(unknown.stdout).toBe('');
    expect((await hal('admin', 'create-operator')).code).toBe(2);
  });

  it('exits 1 with a clear message on a bad environment', async () => {
    let stderr = '';
    const code = await runCli(['db', 'migrate'], {
      env: { HAL_DATA_DIR: dataDir, HAL_PORT: 'eighty' },
      stdout: { write: () => true },
      stderr: { write: (text: string) => (stderr += text) },
    });
    expect(code).toBe(1);
    expect(stderr).toContain('HAL_PORT');
  });

  it('dispatches to the longest matching command words (the table others extend)', async () => {
    const seen: string[][] = [];
    const extra = {
      usage: 'agent run <name>',
      summary: 'test command',
      async run(context: CliContext) {
        seen.push(context.args);
        return 0;
      },
    };
    commands['agent run'] = extra;
    try {
      expect((await hal('agent', 'run', 'web-1')).code).toBe(0);
      expect(seen).toEqual([['web-1']]);
    } finally {
      delete commands['agent run'];
    }
  });

  it('refuses unknown flags, missing values and stray arguments with exit 2 and the command usage', async () => {
    for (const argv of [
      ['serve', '--bogus'],
      ['serve', '--port'],
      ['serve', 'extra'],
      ['db', 'migrate', '--force'],
      ['admin', 'create-operator', 'bob', 'carol'],
      ['admin', 'create-operator', '--admin', 'bob'],
      ['mcp', '--tools', 'all'],
      ['agent', '--hal'],
    ]) {
      const result = await hal(...argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toMatch(/[Uu]sage: hal /);
      expect(result.stdout).toBe('');
    }
    expect(fs.existsSync(path.join(dataDir, 'hal.db'))).toBe(false);
    expect((await hal()).code).toBe(2);
  });

  it('prints per-command help with --help and hal help <command>', async () => {
    const serve = await hal('serve', '--help');
    expect(serve.code).toBe(0);
    for (const flag of ['--port <port>', '--host <address>', '--data <dir>'])
      expect(serve.stdout).toContain(flag);
    expect((await hal('help', 'db', 'migrate')).stdout).toContain('Usage: hal db migrate');
    expect((await hal('agent', '--help')).stdout).toContain('--token');
    expect((await hal('mcp', '-h')).stdout).toContain('HAL_MCP_TOOLS');
    expect(fs.existsSync(path.join(dataDir, 'hal.db'))).toBe(false);
  });

  it('serves on the --host, --port and --data given, over the environment', async () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-cli-data-'));
    let stdout = '';
    let listening: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => {
      listening = resolve;
    });
    let stop: (signal: string) => void = () => undefined;
    const stopSignal = new Promise<string>((resolve) => {
      stop = resolve;
    });
    try {
      const running = runCli(['serve', '--port', '0', '--host', '127.0.0.1', '--data', other], {
        env: { HAL_DATA_DIR: dataDir, HAL_PORT: '1', HAL_LOG_LEVEL: 'silent' },
        stdout: {
          write: (text: string) => {
            stdout += text;
            if (stdout.includes('HAL listening on')) listening();
          },
        },
        stderr: { write: () => true },
        stopSignal,
      });
      await ready;
      const url = /HAL listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
      expect(url).toBeDefined();
      expect((await fetch(`${url}/api/health`)).status).toBe(200);
      expect(fs.existsSync(path.join(other, 'hal.db'))).toBe(true);
      expect(fs.existsSync(path.join(dataDir, 'hal.db'))).toBe(false);
      stop('SIGTERM');
      expect(await running).toBe(0);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it('lists every environment variable the code reads in hal --help and in the README', async () => {
    const help = (await hal('--help')).stdout;
    const readme = fs.readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const listed = new Set(ENVIRONMENT_VARIABLES.map((variable) => variable.name));
    for (const name of listed) {
      expect(help, name).toContain(name);
      expect(readme, `README lists ${name}`).toContain(`\`${name}\``);
    }
    // Every HAL_* name the sources read (as env.X or as a quoted variable name), and the CLI overrides.
    const roots = ['../', '../../../packages/'].map((relative) => new URL(relative, import.meta.url));
    const read = new Set<string>(['CLAUDE_BIN', 'CODEX_BIN']);
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== 'node_modules' && entry.name !== 'dist') walk(full);
        } else if (/\.tsx?$/.test(entry.name) && !/\.test(-support)?\.tsx?$/.test(entry.name)) {
          const text = fs.readFileSync(full, 'utf8');
          for (const match of text.matchAll(/env\.(HAL_[A-Z0-9_]+)|['"](HAL_[A-Z0-9_]+)['"]/g)) {
            read.add((match[1] ?? match[2]) as string);
          }
        }
      }
    };
    for (const root of roots) walk(root.pathname);
    expect(read.size).toBeGreaterThan(10);
    for (const name of read) expect(listed.has(name), `${name} is read but not documented`).toBe(true);
  });
});
