import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authenticateOperator } from './auth/auth-operators.js';
import { type CliContext, commands, runCli } from './cli.js';
import { openDatabase } from './db/database.js';

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

  it('migrates the database', async () => {
    const result = await hal('db', 'migrate');
    expect(result.code).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'hal.db'))).toBe(true);
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
});
