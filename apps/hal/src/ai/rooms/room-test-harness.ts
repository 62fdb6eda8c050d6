import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createProvider } from '@hal-ai/providers';
import { createFakeAnthropic, createFakeOpenAI, type FakeServer } from '@hal-ai/providers/testing';
import type { Connection, ConnectionStatus, HalError } from '@hal-ai/spec';
import {
  createManualClock,
  type ManualClock,
  sessionCookieFrom,
  TEST_SCRYPT_PARAMS,
  type TestSession,
} from '../../../test/foundation-harness.js';
import { createLocalAgent } from '../../agents/agent-local.js';
import { createApp } from '../../app.js';
import { createOperator } from '../../auth/auth-operators.js';
import { loadConfig } from '../../config.js';
import { createHalCore, LOCAL_SERVER_ID } from '../../core/hal-core.js';
import { openDatabase } from '../../db/database.js';
import { migrateToLatest } from '../../db/migrate.js';
import { type AppDeps, createDeps } from '../../deps.js';
import { createLogger } from '../../logger.js';
import { type AiService, createAiService, type RoomConnections } from '../ai-service.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON response bodies loosely.
type LooseJson = any;

/** A connection service over a Map, with models from `@hal-ai/providers` pointed at the fakes. */
export interface MapConnections extends RoomConnections {
  add(connection: Connection, fake: FakeServer): void;
  update(id: string, patch: Partial<Connection>): void;
  remove(id: string): void;
  reported: Array<{ id: string; code: string }>;
}

/** Builds a {@link MapConnections}. Keys are generated per run; fakes check them. */
export function createMapConnections(): MapConnections {
  const entries = new Map<string, { connection: Connection; fake: FakeServer; key: string }>();
  const listeners = new Set<Parameters<RoomConnections['onChange']>[0]>();
  const emit = (type: 'created' | 'updated' | 'deleted', connection: Connection) => {
    for (const listener of listeners) listener({ type, connection: structuredClone(connection) });
  };
  const reported: MapConnections['reported'] = [];
  return {
    reported,
    async list() {
      return [...entries.values()].map((entry) => structuredClone(entry.connection));
    },
    async get(id) {
      const entry = entries.get(id);
      return entry ? structuredClone(entry.connection) : undefined;
    },
    async languageModel(id) {
      const entry = entries.get(id);
      if (!entry) throw new Error(`no connection ${id}`);
      const common = { baseUrl: entry.fake.baseUrl, apiKey: entry.key, maxRetries: 0 };
      const provider =
        entry.connection.provider === 'anthropic'
          ? createProvider({ provider: 'anthropic', ...common, baseUrl: entry.fake.url })
          : createProvider({ provider: 'openai', ...common });
      return provider.languageModel(entry.connection.model ?? 'default');
    },
    async reportProviderError(id: string, error: HalError) {
      reported.push({ id, code: error.code });
      const entry = entries.get(id);
      if (!entry) return;
      const status: ConnectionStatus = error.code === 'provider_auth' ? 'error' : entry.connection.status;
      entry.connection = {
        ...entry.connection,
        status,
        lastError: { code: error.code, message: error.message },
      };
      emit('updated', entry.connection);
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    add(connection, fake) {
      entries.set(connection.id, { connection, fake, key: randomBytes(24).toString('hex') });
      emit('created', connection);
    },
    update(id, patch) {
      const entry = entries.get(id);
      if (!entry) return;
      entry.connection = { ...entry.connection, ...patch };
      emit('updated', entry.connection);
    },
    remove(id) {
      const entry = entries.get(id);
      if (!entry) return;
      entries.delete(id);
      emit('deleted', entry.connection);
    },
  };
}

/** A connection's public view for tests. */
export function testConnection(id: string, name: string, provider: 'openai' | 'anthropic'): Connection {
  return {
    id,
    name,
    provider,
    auth: 'api_key',
    baseUrl: null,
    model: provider === 'openai' ? 'gpt-test' : 'claude-test',
    models: null,
    identity: { role: `${name} role: reviewer`, traits: 'careful', instructions: `${name} answers briefly` },
    tools: { preset: 'all', enabled: [] },
    status: 'active',
    lastCheckedAt: null,
    lastError: null,
    secret: { hasKey: true, hint: '…test' },
  };
}

/** The app over a real SQLite file, a running HAL core, two fakes and the AI service. */
export interface RoomTestApp {
  app: ReturnType<typeof createApp>;
  deps: AppDeps;
  ai: AiService;
  clock: ManualClock;
  dataDir: string;
  dbFile: string;
  gpt: FakeServer;
  claude: FakeServer;
  connections: MapConnections;
  session: TestSession;
  password: string;
  call(method: string, pathname: string, json?: unknown): Promise<{ status: number; body: LooseJson }>;
  request(pathname: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

/** Options of {@link createRoomTestApp}. */
export interface RoomTestAppOptions {
  /** Reuse a data folder, fakes and connections (restart tests). */
  reuse?: Pick<RoomTestApp, 'dataDir' | 'gpt' | 'claude' | 'connections'>;
  skill?: string;
}

/** Builds {@link RoomTestApp}: GPT (OpenAI fake) and Claude (Anthropic fake), a logged-in operator. */
export async function createRoomTestApp(options: RoomTestAppOptions = {}): Promise<RoomTestApp> {
  const dataDir = options.reuse?.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'hal-rooms-app-'));
  const dbFile = path.join(dataDir, 'hal.db');
  const database = openDatabase(dbFile);
  await migrateToLatest(database.db);
  const clock = createManualClock(Date.now());
  const config = loadConfig({ HAL_DATA_DIR: dataDir });
  const deps = createDeps({
    db: database.db,
    sqlite: database.sqlite,
    config,
    clock,
    logger: createLogger({ level: 'silent' }),
  });
  const local = createLocalAgent({ serverId: LOCAL_SERVER_ID, dataDir, cpuSampleMs: 10 });
  deps.core = createHalCore({
    db: deps.db,
    sqlite: deps.sqlite,
    clock: deps.clock,
    audit: deps.audit,
    dataDir,
    agents: { get: (id) => (id === LOCAL_SERVER_ID ? local : undefined) },
    hostname: 'hal-rooms-host',
    pollMs: 50,
    metricsIntervalMs: 0,
  });
  await deps.core.start();
  const gpt = options.reuse?.gpt ?? (await createFakeOpenAI());
  const claude = options.reuse?.claude ?? (await createFakeAnthropic());
  const connections = options.reuse?.connections ?? createMapConnections();
  if (!options.reuse) {
    connections.add(testConnection('conn_gpt', 'GPT', 'openai'), gpt);
    connections.add(testConnection('conn_claude', 'Claude', 'anthropic'), claude);
  }
  const ai = createAiService({ deps, connections, skill: options.skill ?? 'HAL SKILL DOCUMENT (test)' });
  deps.ai = ai;
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
    session,
    password,
    request,
    async call(method, pathname, json) {
      const response = await request(pathname, { method, ...(json === undefined ? {} : { json }) });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    async close() {
      await ai.close();
      await deps.core?.stop(2000);
      await database.close();
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
