import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createFakeAnthropic,
  createFakeOpenAI,
  type FakeServer,
  type FakeServerOptions,
} from '@hal-ai/providers/testing';
import {
  createManualClock,
  type ManualClock,
  sessionCookieFrom,
  TEST_SCRYPT_PARAMS,
  type TestSession,
} from '../../../test/foundation.test-support.js';
import { createApp } from '../../app.js';
import { createLocalAgent } from '../../domain/agents/agent-local.js';
import { createOperator } from '../../domain/auth/auth-operators.js';
import { LOCAL_SERVER_ID } from '../../domain/core/hal-core.js';
import { createHalRuntime, type HalRuntime } from '../../hal-runtime.js';
import { loadConfig } from '../../platform/config.js';
import { openDatabase } from '../../platform/db/database.js';
import { migrateToLatest } from '../../platform/db/migrate.js';
import { createLogger } from '../../platform/logger.js';
import type { AiService } from '../ai-service.js';
import type { ConnectionManager } from '../connections/index.js';
import type { DebateWikiPublisherOptions } from '../debates/debate-wiki-publisher.js';
import type { HalWebAccess, HalWebAccessDeps } from '../web/hal-web-access.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON response bodies loosely.
type LooseJson = any;

/** A create-connection body (SPEC §13) pointing at a fake. */
export function testConnectionBody(
  name: string,
  provider: 'openai' | 'anthropic',
  baseUrl: string,
  apiKey: string,
  model: string,
) {
  return {
    provider,
    name,
    auth: 'api_key',
    apiKey,
    baseUrl,
    model,
    identity: { role: `${name} role: reviewer`, traits: 'careful', instructions: `${name} answers briefly` },
    tools: { preset: 'all' },
  };
}

/** The app over a real SQLite file, a running HAL core, two fakes and the AI service. */
export interface RoomTestApp {
  app: ReturnType<typeof createApp>;
  deps: HalRuntime;
  ai: AiService;
  clock: ManualClock;
  dataDir: string;
  dbFile: string;
  gpt: FakeServer;
  claude: FakeServer;
  connections: ConnectionManager;
  /** Connection ids by name. */
  ids: { gpt: string; claude: string };
  /** The API keys the fakes accept (generated per run). */
  keys: { gpt: string; claude: string };
  session: TestSession;
  password: string;
  call(method: string, pathname: string, json?: unknown): Promise<{ status: number; body: LooseJson }>;
  request(pathname: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

/** Options of {@link createRoomTestApp}. */
export interface RoomTestAppOptions {
  /** Reuse a data folder, fakes and connections (restart tests). */
  reuse?: Pick<RoomTestApp, 'dataDir' | 'gpt' | 'claude' | 'ids' | 'keys'>;
  skill?: string;
  /** Extra environment for the config (e.g. `HAL_WEB_ALLOW_PRIVATE: '1'`, the explicit test allowance). */
  env?: Record<string, string>;
  /** HAL's web access, built from the runtime (absent → no linked pages, no `web_fetch`). */
  web?: (deps: HalWebAccessDeps) => HalWebAccess;
  /** The Wiki.js publisher's edges (e.g. a retry timer the test fires itself). */
  wiki?: DebateWikiPublisherOptions;
  /** Receives every log line (default: nothing is logged). */
  log?: (line: string) => void;
  /** How each fake answers when nothing is queued (a scripted model that reads its prompt). */
  respond?: { gpt?: FakeServerOptions['respond']; claude?: FakeServerOptions['respond'] };
}

/**
 * Builds {@link RoomTestApp}: a logged-in operator, the real connection service with its vault, and two
 * connections created through the API — GPT (OpenAI fake) and Claude (Anthropic fake), each fake
 * accepting only its generated key.
 */
export async function createRoomTestApp(options: RoomTestAppOptions = {}): Promise<RoomTestApp> {
  const dataDir = options.reuse?.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'hal-rooms-app-'));
  const dbFile = path.join(dataDir, 'hal.db');
  const database = openDatabase(dbFile);
  await migrateToLatest(database.db);
  const clock = createManualClock(Date.now());
  const config = {
    ...loadConfig({ HAL_DATA_DIR: dataDir, ...options.env }),
    passwordHashing: TEST_SCRYPT_PARAMS,
  };
  const keys = options.reuse?.keys ?? {
    gpt: randomBytes(24).toString('base64url'),
    claude: randomBytes(24).toString('base64url'),
  };
  const gpt =
    options.reuse?.gpt ??
    (await createFakeOpenAI({
      apiKey: keys.gpt,
      models: [{ id: 'gpt-test' }, { id: 'gpt-large' }],
      ...(options.respond?.gpt ? { respond: options.respond.gpt } : {}),
    }));
  const claude =
    options.reuse?.claude ??
    (await createFakeAnthropic({
      apiKey: keys.claude,
      models: [{ id: 'claude-test' }],
      ...(options.respond?.claude ? { respond: options.respond.claude } : {}),
    }));
  // The key file lives in the data folder, so a second HAL on the same folder opens the same vault.
  const deps = await createHalRuntime(config, {
    database,
    clock,
    logger: options.log
      ? createLogger({ level: 'trace', destination: { write: options.log } })
      : createLogger({ level: 'silent' }),
    env: {},
    localAgent: createLocalAgent({ serverId: LOCAL_SERVER_ID, dataDir, cpuSampleMs: 10 }),
    remoteAgents: false,
    core: { hostname: 'hal-rooms-host', pollMs: 50, metricsIntervalMs: 0 },
    connections: { firstByteTimeoutMs: 20_000, idleTimeoutMs: 20_000 },
    skill: options.skill ?? 'HAL SKILL DOCUMENT (test)',
    ...(options.web ? { web: options.web } : {}),
    ...(options.wiki ? { wiki: options.wiki } : {}),
  });
  // Only the job runner: the restart tests run the rooms' start-up recovery themselves.
  await deps.core.start();
  const { ai, connections } = deps;
  const username = `op${randomBytes(3).toString('hex')}`;
  const { password } = await createOperator({ ...deps, passwordParams: TEST_SCRYPT_PARAMS }, username);
  const app = createApp(deps);

  let session: TestSession = { cookie: '', csrfToken: '' };
  const request: RoomTestApp['request'] = async (pathname, init = {}) => {
    const { json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (session.cookie) {
      headers.set('cookie', session.cookie);
      if (!headers.has('x-csrf-token')) headers.set('x-csrf-token', session.csrfToken);
    }
    let body = rest.body;
    if (json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(json);
    }
    const response = await app.request(pathname, { ...rest, headers, body });
    // Re-authentication rotates the session cookie, as a browser would follow.
    const rotated = sessionCookieFrom(response);
    if (rotated && session.cookie) session.cookie = rotated;
    return response;
  };
  const login = await request('/ops/login', { method: 'POST', json: { username, password } });
  if (login.status !== 200) throw new Error(`login failed: ${login.status}`);
  session = {
    cookie: sessionCookieFrom(login) ?? '',
    csrfToken: ((await login.json()) as { csrfToken: string }).csrfToken,
  };

  let ids = options.reuse?.ids ?? { gpt: '', claude: '' };
  if (!options.reuse) {
    const created = [];
    for (const body of [
      testConnectionBody('GPT', 'openai', gpt.baseUrl, keys.gpt, 'gpt-test'),
      testConnectionBody('Claude', 'anthropic', claude.url, keys.claude, 'claude-test'),
    ]) {
      const response = await request('/ops/api/ai/connections', { method: 'POST', json: body });
      const json = (await response.json()) as { connection: { id: string; status: string } };
      if (response.status !== 201 || json.connection.status !== 'active') {
        throw new Error(`connection setup failed: ${response.status} ${JSON.stringify(json)}`);
      }
      created.push(json.connection.id);
    }
    ids = { gpt: created[0] as string, claude: created[1] as string };
  }

  return {
    app,
    deps,
    ai,
    clock,
    dataDir,
    dbFile,
    gpt,
    claude,
    connections,
    ids,
    keys,
    session,
    password,
    request,
    async call(method, pathname, json) {
      const response = await request(pathname, { method, ...(json === undefined ? {} : { json }) });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    async close() {
      await deps.close(2000);
      if (!options.reuse) {
        await gpt.close();
        await claude.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

/** Waits until `check` passes (generous: the machine is shared). */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 10_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() - started > timeoutMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}
