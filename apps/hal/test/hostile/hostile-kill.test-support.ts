// Test support (not exported): a real `hal serve` child process on a data folder, killed with SIGKILL at a marked
// point (HAL_TEST_PAUSE_DIR, see src/platform/pause-points.ts) and started again.
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  ensureBuilt,
  type HalProcess,
  type HttpSession,
  signInOverHttp,
  startHalProcess,
} from '../hal-serve.test-support.js';

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

/** A signed-in operator of a child HAL (see {@link signInOverHttp}). */
export type ChildSession = HttpSession;

/** Signs `admin` in. */
export const signIn = (url: string, password: string): Promise<ChildSession> => signInOverHttp(url, password);
