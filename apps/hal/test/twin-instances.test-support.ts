import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe } from 'vitest';
import type { ConnectionServiceOptions } from '../src/ai/connections/index.js';
import { createApp } from '../src/app.js';
import { createLocalAgent } from '../src/domain/agents/agent-local.js';
import { createOperator } from '../src/domain/auth/auth-operators.js';
import { LOCAL_SERVER_ID } from '../src/domain/core/hal-core.js';
import { createHalRuntime, type HalRuntime } from '../src/hal-runtime.js';
import { loadConfig } from '../src/platform/config.js';
import { type OpenDatabase, openDatabase } from '../src/platform/db/database.js';
import { openPostgresDatabase } from '../src/platform/db/database-postgres.js';
import {
  createMigratedPostgresTestDatabase,
  describePostgres,
} from '../src/platform/db/database-postgres.test-support.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { createLogger } from '../src/platform/logger.js';
import {
  createManualClock,
  type ManualClock,
  sessionCookieFrom,
  sessionRequest,
  TEST_SCRYPT_PARAMS,
  type TestApp,
  type TestSession,
} from './foundation.test-support.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON response bodies loosely.
type LooseJson = any;

/** Where the two instances keep their one database. */
export type SharedDialect = 'sqlite' | 'postgres';

/**
 * Runs a suite over two HAL instances sharing one database: always on one SQLite file (as `hal serve` and `hal mcp`
 * share it), and on PostgreSQL when `HAL_TEST_DATABASE_URL` is set (else that half is skipped, naming why).
 */
export function describeEachSharedDatabase(name: string, body: (dialect: SharedDialect) => void): void {
  describe(`${name} (SQLite)`, () => body('sqlite'));
  describePostgres(name, () => body('postgres'));
}

/** One of the two instances: its runtime, its app, and requests as a browser signed in to it makes them. */
export interface TwinInstance {
  runtime: HalRuntime;
  app: ReturnType<typeof createApp>;
  request: TestApp['request'];
  /** `request` returning the status and the parsed body. */
  call(
    method: string,
    pathname: string,
    session: TestSession,
    json?: unknown,
  ): Promise<{ status: number; body: LooseJson }>;
  /** Logs the operator in on this instance. */
  login(): Promise<TestSession>;
}

/** Two started HAL instances on one database and one data folder (the same vault key file). */
export interface TwinInstances {
  a: TwinInstance;
  b: TwinInstance;
  clock: ManualClock;
  dataDir: string;
  /** The PostgreSQL database's URL (`undefined` on SQLite: the data folder's `hal.db`). */
  databaseUrl: string | undefined;
  username: string;
  password: string;
  close(): Promise<void>;
}

/** Options of {@link createTwinInstances}. */
export interface TwinInstancesOptions {
  /** The connection service's options on both (timeouts, OAuth fetch, …). */
  connections?: ConnectionServiceOptions;
  /** Time between two heartbeats of each (default 5 s; an hour leaves heartbeats to the test). */
  heartbeatIntervalMs?: number;
}

/**
 * Builds {@link TwinInstances}: one migrated database (a SQLite file, or a PostgreSQL database of its own that
 * `close` drops), two runtimes on their own handles of it sharing a manual clock, both started as `hal serve`
 * starts them, and one operator.
 */
export async function createTwinInstances(
  dialect: SharedDialect,
  options: TwinInstancesOptions = {},
): Promise<TwinInstances> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-twins-'));
  let open: () => OpenDatabase;
  let drop: () => Promise<void> = async () => undefined;
  let databaseUrl: string | undefined;
  if (dialect === 'postgres') {
    const target = await createMigratedPostgresTestDatabase();
    databaseUrl = target.url;
    open = () => openPostgresDatabase(target.url);
    drop = target.drop;
  } else {
    const file = path.join(dataDir, 'hal.db');
    const first = openDatabase(file);
    await migrateToLatest(first.db);
    await first.close();
    open = () => openDatabase(file);
  }
  const clock = createManualClock(Date.now());
  const config = { ...loadConfig({ HAL_DATA_DIR: dataDir }), passwordHashing: TEST_SCRYPT_PARAMS };
  const runtimes: HalRuntime[] = [];
  const build = async () => {
    const runtime = await createHalRuntime(config, {
      database: open(),
      clock,
      logger: createLogger({ level: 'silent' }),
      env: {},
      remoteAgents: false,
      localAgent: createLocalAgent({ serverId: LOCAL_SERVER_ID, dataDir, cpuSampleMs: 10 }),
      core: { hostname: 'hal-twins', pollMs: 50, metricsIntervalMs: 0 },
      connections: options.connections ?? { firstByteTimeoutMs: 20_000, idleTimeoutMs: 20_000 },
      skill: 'HAL SKILL DOCUMENT (test)',
      ...(options.heartbeatIntervalMs !== undefined
        ? { heartbeatIntervalMs: options.heartbeatIntervalMs }
        : {}),
    });
    runtimes.push(runtime);
    await runtime.start();
    return runtime;
  };
  const close = async () => {
    for (const runtime of runtimes.splice(0)) await runtime.close(2000);
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    // A first, so its vault key file exists when B opens the vault.
    const a = await build();
    const b = await build();
    const username = 'alice';
    const { password } = await createOperator({ ...a, passwordParams: TEST_SCRYPT_PARAMS }, username);
    const instance = (runtime: HalRuntime): TwinInstance => {
      const app = createApp(runtime);
      const request = sessionRequest(app);
      return {
        runtime,
        app,
        request,
        async call(method, pathname, session, json) {
          const response = await request(pathname, {
            method,
            session,
            ...(json === undefined ? {} : { json }),
          });
          const text = await response.text();
          return { status: response.status, body: text ? JSON.parse(text) : null };
        },
        async login() {
          const response = await request('/ops/login', { method: 'POST', json: { username, password } });
          if (response.status !== 200)
            throw new Error(`login failed: ${response.status} ${await response.text()}`);
          const cookie = sessionCookieFrom(response);
          if (cookie === null) throw new Error('login set no cookie');
          return { cookie, csrfToken: ((await response.json()) as { csrfToken: string }).csrfToken };
        },
      };
    };
    return { a: instance(a), b: instance(b), clock, dataDir, databaseUrl, username, password, close };
  } catch (error) {
    await close();
    throw error;
  }
}
