// Test support (not exported): a real `hal serve` child process on a data folder, killed with SIGKILL at a marked
// point (HAL_TEST_PAUSE_DIR, see src/platform/pause-points.ts) and started again.
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { ensureBuilt, type HalProcess, startHalProcess } from '../hal-serve.test-support.js';

/** A running `hal serve`, as a child process (`kill9()` ends it as a crash would). */
export type HalChild = HalProcess;

/** Starts `node dist/cli.js serve` on `dataDir` (port 0) with the pause points in `pauseDir`. */
export function startHalChild(dataDir: string, pauseDir: string): Promise<HalChild> {
  ensureBuilt();
  return startHalProcess(dataDir, { HAL_LOG_LEVEL: 'warn', HAL_TEST_PAUSE_DIR: pauseDir });
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
