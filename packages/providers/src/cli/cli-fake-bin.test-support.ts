// Test support (not exported): writes fake `claude`/`codex` executables into a temp dir. The fake
// reads its behaviour from a JSON file beside it — the adapter's minimal environment would drop
// any variable we tried to pass — and records every call (argv, env, cwd, pid, stdin).

import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** How a fake CLI answers. */
export interface FakeBehaviour {
  version?: string;
  loggedIn?: boolean;
  /** stdout of a model run (claude -p / codex exec); lines are written one by one. */
  runStdout?: string[];
  runStderr?: string;
  runExit?: number;
  /** Spawn a grandchild, record both pids, then never exit. */
  hang?: boolean;
}

const SCRIPT = String.raw`#!/usr/bin/env node
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const tool = path.basename(__filename);
const dir = __dirname;
const behaviour = JSON.parse(fs.readFileSync(path.join(dir, tool + '.behaviour.json'), 'utf8'));
const argv = process.argv.slice(2);
let stdin = null;
if (argv.includes('-') || (tool === 'claude' && argv.includes('-p') && !argv.includes('--'))) {
  stdin = fs.readFileSync(0, 'utf8');
}
fs.appendFileSync(path.join(dir, 'calls.jsonl'), JSON.stringify({ tool, argv, env: process.env, cwd: process.cwd(), pid: process.pid, stdin }) + '\n');
if (argv[0] === '--version') {
  console.log(tool === 'claude' ? (behaviour.version || '9.9.9') + ' (Claude Code)' : 'codex-cli ' + (behaviour.version || '9.9.9'));
  process.exit(0);
}
if (tool === 'claude' && argv[0] === 'auth' && argv[1] === 'status') {
  console.log(JSON.stringify({ loggedIn: !!behaviour.loggedIn, authMethod: behaviour.loggedIn ? 'claude.ai' : 'none' }, null, 2));
  process.exit(behaviour.loggedIn ? 0 : 1);
}
if (tool === 'codex' && argv[0] === 'login' && argv[1] === 'status') {
  console.error('WARNING: proceeding, even though we could not create PATH aliases');
  console.error(behaviour.loggedIn ? 'Logged in using ChatGPT' : 'Not logged in');
  process.exit(behaviour.loggedIn ? 0 : 1);
}
if (behaviour.hang) {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  fs.writeFileSync(path.join(dir, 'pids.json'), JSON.stringify({ parent: process.pid, child: child.pid }));
  setInterval(() => {}, 1000);
} else {
  for (const line of behaviour.runStdout || []) process.stdout.write(line + '\n');
  if (behaviour.runStderr) process.stderr.write(behaviour.runStderr);
  process.exitCode = behaviour.runExit || 0;
}
`;

/** A temp dir holding fake executables, with helpers to script and inspect them. */
export interface FakeBinDir {
  dir: string;
  /** Writes (or rewrites) a fake `tool` into `subdir` of the temp dir (default: the dir itself). */
  install(tool: 'claude' | 'codex', behaviour: FakeBehaviour, subdir?: string): Promise<string>;
  calls(
    subdir?: string,
  ): Promise<
    Array<{ tool: string; argv: string[]; env: Record<string, string>; cwd: string; stdin: string | null }>
  >;
  pids(subdir?: string): Promise<{ parent: number; child: number }>;
  cleanup(): Promise<void>;
}

/** Creates a fresh temp dir for fake CLIs. */
export async function createFakeBinDir(): Promise<FakeBinDir> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hal-fake-cli-'));
  const at = (subdir?: string) => (subdir ? path.join(dir, subdir) : dir);
  return {
    dir,
    async install(tool, behaviour, subdir) {
      const target = at(subdir);
      await mkdir(target, { recursive: true });
      const file = path.join(target, tool);
      await writeFile(file, SCRIPT);
      await chmod(file, 0o755);
      await writeFile(path.join(target, `${tool}.behaviour.json`), JSON.stringify(behaviour));
      return file;
    },
    async calls(subdir) {
      try {
        const text = await readFile(path.join(at(subdir), 'calls.jsonl'), 'utf8');
        return text
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line));
      } catch {
        return [];
      }
    },
    async pids(subdir) {
      return JSON.parse(await readFile(path.join(at(subdir), 'pids.json'), 'utf8'));
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * True while a process with this pid runs. A zombie counts as gone: in a container the reaper of
 * orphans may be slow, but a zombie no longer executes anything.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}
