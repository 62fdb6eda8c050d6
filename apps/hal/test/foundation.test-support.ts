import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Hono } from 'hono';
import { createApp } from '../src/app.js';
import { createLocalAgent } from '../src/domain/agents/agent-local.js';
import { createOperator } from '../src/domain/auth/auth-operators.js';
import { LOCAL_SERVER_ID } from '../src/domain/core/hal-core.js';
import { createHalRuntime, type HalRuntime } from '../src/hal-runtime.js';
import { type HalConfig, loadConfig } from '../src/platform/config.js';
import { openDatabase } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import type { AppEnv, Operator } from '../src/platform/http/env.js';
import { createLogger } from '../src/platform/logger.js';

/** A cheap scrypt cost for test operators. */
export const TEST_SCRYPT_PARAMS = { N: 2 ** 10, r: 8, p: 1 };

/** A clock tests move by hand. */
export interface ManualClock {
  now(): number;
  advance(ms: number): void;
  set(ms: number): void;
}

/** Creates a {@link ManualClock} starting at `start` (epoch ms). */
export function createManualClock(start = Date.UTC(2030, 0, 1)): ManualClock {
  let current = start;
  return {
    now: () => current,
    advance(ms) {
      current += ms;
    },
    set(ms) {
      current = ms;
    },
  };
}

/** A signed-in browser as tests see it. */
export interface TestSession {
  cookie: string;
  csrfToken: string;
}

/** Reads the `hal_session` value out of a response's Set-Cookie headers. */
export function sessionCookieFrom(response: Response): string | null {
  for (const header of response.headers.getSetCookie()) {
    const match = /^hal_session=([^;]*)/.exec(header);
    if (match?.[1]) return `hal_session=${match[1]}`;
  }
  return null;
}

/** What {@link createTestApp} gives back. */
export interface TestApp {
  app: ReturnType<typeof createApp>;
  /** Every service of this HAL (`createHalRuntime`). */
  deps: HalRuntime;
  clock: ManualClock;
  operator: Operator;
  password: string;
  /** Calls the app with `origin` http://localhost (what `app.request` uses). */
  request(
    pathname: string,
    init?: RequestInit & { session?: TestSession; json?: unknown },
  ): Promise<Response>;
  login(username?: string, password?: string): Promise<TestSession>;
  close(): Promise<void>;
}

/** Options of {@link createTestApp}. */
/**
 * `app.request` that sends a session's cookie and CSRF token and encodes `json` bodies — what a
 * signed-in browser does on every call.
 */
export function sessionRequest(app: { request: Hono<AppEnv>['request'] }): TestApp['request'] {
  return (pathname, init = {}) => {
    const { session, json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (session) {
      headers.set('cookie', session.cookie);
      if (!headers.has('x-csrf-token')) headers.set('x-csrf-token', session.csrfToken);
    }
    let body = rest.body;
    if (json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(json);
    }
    return Promise.resolve(app.request(pathname, { ...rest, headers, body }));
  };
}

export interface TestAppOptions {
  config?: Partial<HalConfig>;
  /**
   * Starts the HAL core (job runner, 50 ms poll) over a real local agent deploying into the app's temp
   * data folder; `close()` stops it. `hostname` is what the local server is named after. Without it the
   * core exists but its job runner is not started.
   */
  core?: { hostname: string };
  /** Adjusts the runtime before the app is built (tests replace `agents` or `jobs`). */
  build?: (deps: HalRuntime) => void;
}

/**
 * The app over an in-memory, migrated SQLite, a manual clock, a silent logger and one operator
 * (`alice`, generated password). For route tests through `app.request()`.
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = openDatabase(':memory:');
  await migrateToLatest(database.db);
  const clock = createManualClock();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-test-'));
  const config = {
    ...loadConfig({ HAL_DATA_DIR: dataDir }),
    passwordHashing: TEST_SCRYPT_PARAMS,
    ...options.config,
  };
  const deps = await createHalRuntime(config, {
    database,
    clock,
    logger: createLogger({ level: 'silent' }),
    env: {},
    // Servers other than the local one have no agent, as in wave 1's route tests.
    remoteAgents: false,
    localAgent: createLocalAgent({ serverId: LOCAL_SERVER_ID, dataDir, cpuSampleMs: 10 }),
    core: { pollMs: 50, metricsIntervalMs: 0, ...(options.core ? { hostname: options.core.hostname } : {}) },
  });
  options.build?.(deps);
  // Lower scrypt cost keeps route tests fast on a shared machine; the real cost is tested in
  // auth-password.test.ts, and verification always uses the cost stored in the hash.
  const { operator, password } = await createOperator(
    { ...deps, passwordParams: TEST_SCRYPT_PARAMS },
    'alice',
  );
  const app = createApp(deps);
  if (options.core) await deps.core.start();

  const request = sessionRequest(app);

  return {
    app,
    deps,
    clock,
    operator,
    password,
    request,
    async login(username = 'alice', secret = password) {
      const response = await request('/ops/login', { method: 'POST', json: { username, password: secret } });
      if (response.status !== 200)
        throw new Error(`login failed: ${response.status} ${await response.text()}`);
      const body = (await response.json()) as { csrfToken: string };
      const cookie = sessionCookieFrom(response);
      if (cookie === null) throw new Error('login set no cookie');
      return { cookie, csrfToken: body.csrfToken };
    },
    async close() {
      await deps.close(2000);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
