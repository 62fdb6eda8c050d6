// Test support (not exported): a real `hal serve` child process on a data folder, killed with SIGKILL at a marked
// point (HAL_TEST_PAUSE_DIR, see src/platform/pause-points.ts) and started again.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { ensureBuilt } from '../e2e/panel-browser.test-support.js';

/** A running `hal serve`, as a child process. */
export interface HalChild {
  url: string;
  /** The first operator's one-time password, printed by the first start only. */
  password: string | null;
  process: ChildProcess;
  /** SIGKILL, then waits for the exit. */
  kill9(): Promise<void>;
  /** Everything it wrote to stderr (its log). */
  stderr(): string;
}

/** Starts `node dist/cli.js serve` on `dataDir` (port 0) with the pause points in `pauseDir`. */
export async function startHalChild(dataDir: string, pauseDir: string): Promise<HalChild> {
  const cli = ensureBuilt();
  const child = spawn(process.execPath, [cli, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dataDir,
      HAL_DATA_DIR: dataDir,
      HAL_HOST: '127.0.0.1',
      HAL_PORT: '0',
      HAL_LOG_LEVEL: 'warn',
      HAL_TEST_PAUSE_DIR: pauseDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const listening = /HAL listening on (http:\/\/\S+)/.exec(stdout);
      if (listening?.[1]) resolve(listening[1]);
    });
    child.once('exit', (code) =>
      reject(new Error(`hal serve exited (${code}) before listening:\n${stderr}`)),
    );
  });
  return {
    url,
    password: /password: (\S+)/.exec(stdout)?.[1] ?? null,
    process: child,
    async kill9() {
      child.kill('SIGKILL');
      await exited;
    },
    stderr: () => stderr,
  };
}

/** Asks the next process that reaches `point` to wait there (see `createPausePoints`). */
export function holdAt(pauseDir: string, point: string): void {
  fs.writeFileSync(path.join(pauseDir, `${point}.hold`), '');
}

/** Resolves once a process waits at `point` (it wrote `<point>.reached`). Polls a file: no timing is assumed. */
export async function reached(pauseDir: string, point: string, timeoutMs = 60_000): Promise<void> {
  const file = path.join(pauseDir, `${point}.reached`);
  const deadline = Date.now() + timeoutMs;
  while (!fs.existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`nothing reached ${point}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Polls `probe` until it returns a value (not undefined); for state another process writes. */
export async function until<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('the state never came');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Reads HAL's database (read-only: the child may be running) with `work`. */
export function readDatabase<T>(dataDir: string, work: (db: BetterSqlite3.Database) => T): T {
  const db = new BetterSqlite3(path.join(dataDir, 'hal.db'), { readonly: true, fileMustExist: true });
  try {
    return work(db);
  } finally {
    db.close();
  }
}

/** A signed-in operator of a child HAL: JSON calls with the session cookie, CSRF token and Origin. */
export interface ChildSession {
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON bodies of many shapes
  call(method: string, pathname: string, json?: unknown): Promise<{ status: number; body: any }>;
  /** Sends and never waits (the process may be killed before it answers). */
  fire(method: string, pathname: string, json?: unknown): void;
}

/** Signs `admin` in. */
export async function signIn(url: string, password: string): Promise<ChildSession> {
  const login = await fetch(`${url}/ops/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ username: 'admin', password }),
  });
  if (login.status !== 200) throw new Error(`login failed: ${login.status}`);
  const cookie = /hal_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')?.[0] ?? '';
  const { csrfToken } = (await login.json()) as { csrfToken: string };
  const send = (method: string, pathname: string, json?: unknown) =>
    fetch(`${url}${pathname}`, {
      method,
      headers: {
        cookie,
        'x-csrf-token': csrfToken,
        origin: url,
        ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
  return {
    async call(method, pathname, json) {
      const response = await send(method, pathname, json);
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    fire(method, pathname, json) {
      send(method, pathname, json).catch(() => undefined);
    },
  };
}
