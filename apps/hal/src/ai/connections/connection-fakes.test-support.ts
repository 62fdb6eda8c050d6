// Test support (not exported): the HAL app over a real SQLite file and a real vault with the
// connections service wired in, the OAuth pieces of its tests (the callback URL, a fake authorization server for it,
// the callback page as the popup opens it), and fake `claude` and `codex` commands.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createFakeAuthorizationServer,
  type FakeAuthorizationServer,
  type FakeAuthorizationServerOptions,
} from '@hal-ai/providers/testing';
import {
  createManualClock,
  type ManualClock,
  sessionCookieFrom,
  sessionRequest,
  TEST_SCRYPT_PARAMS,
  type TestSession,
} from '../../../test/foundation.test-support.js';
import { createApp } from '../../app.js';
import { createOperator } from '../../domain/auth/auth-operators.js';
import { createHalRuntime, type HalRuntime } from '../../hal-runtime.js';
import { loadConfig } from '../../platform/config.js';
import { openDatabase } from '../../platform/db/database.js';
import { migrateToLatest } from '../../platform/db/migrate.js';
import type { Operator } from '../../platform/http/env.js';
import { createLogger } from '../../platform/logger.js';
import type { ConnectionManager, ConnectionServiceOptions } from './connection-service.js';

/** A secret generated for this run (never a key-looking literal in source). */
export function generatedSecret(): string {
  return randomBytes(24).toString('base64url');
}

/** HAL's OAuth callback in the test config: the listen address (HAL_PUBLIC_URL unset), never a request's Host. */
export const TEST_OAUTH_CALLBACK_URL = 'http://127.0.0.1:7420/ops/ai/oauth/callback';

/**
 * A fake authorization server (real HTTP on 127.0.0.1, PKCE S256, exact redirect URI, single-use codes) that
 * accepts only {@link TEST_OAUTH_CALLBACK_URL}; it issues random tokens and keys per run and lists them in
 * `issuedAccessTokens` and `issuedKeys`.
 */
export function createTestAuthorizationServer(
  options: FakeAuthorizationServerOptions = {},
): Promise<FakeAuthorizationServer> {
  return createFakeAuthorizationServer({ redirectUri: TEST_OAUTH_CALLBACK_URL, ...options });
}

/**
 * A create-connection body (SPEC §13) for an OAuth gateway named `gateway` (or `overrides.name`) whose custom
 * endpoints are the fake authorization server; `overrides.oauth` replaces or adds OAuth fields.
 */
export function oauthGatewayBody(
  provider: 'anthropic' | 'other',
  baseUrl: string,
  auth: { url: string; clientId: string; clientSecret: string },
  overrides: { name?: string; oauth?: Record<string, unknown> } = {},
) {
  return {
    provider,
    name: overrides.name ?? 'gateway',
    auth: 'oauth',
    baseUrl,
    model: 'claude-gw',
    oauth: {
      preset: 'custom',
      authorizeUrl: `${auth.url}/authorize`,
      tokenUrl: `${auth.url}/token`,
      clientId: auth.clientId,
      clientSecret: auth.clientSecret,
      scopes: ['models'],
      ...overrides.oauth,
    },
  };
}

/** A `data-*` attribute of the OAuth callback page (`code`, `ok`, `status`): what the popup reports to the panel. */
export function callbackData(html: string, name: string): string | undefined {
  return new RegExp(`data-${name}="([^"]*)"`).exec(html)?.[1];
}

/**
 * Opens the OAuth callback (`url`, absolute or a path with its query) as the login popup does, with `session`'s
 * cookie: the HTTP status, the page, and the error code and outcome it reports.
 */
export async function openOAuthCallback(
  request: ConnectionsTestApp['request'],
  url: URL | string,
  session: TestSession,
): Promise<{ status: number; html: string; code: string | undefined; ok: string | undefined }> {
  const target = typeof url === 'string' ? new URL(url, TEST_OAUTH_CALLBACK_URL) : url;
  const response = await request(`${target.pathname}${target.search}`, { session });
  const html = await response.text();
  return { status: response.status, html, code: callbackData(html, 'code'), ok: callbackData(html, 'ok') };
}

/** The app with connections over a temp-file database. */
export interface ConnectionsTestApp {
  deps: HalRuntime;
  connections: ConnectionManager;
  clock: ManualClock;
  dbFile: string;
  /** Every JSON log line written so far. */
  logLines: string[];
  alice: { operator: Operator; password: string };
  bob: { operator: Operator; password: string };
  request(
    pathname: string,
    init?: RequestInit & { session?: TestSession; json?: unknown },
  ): Promise<Response>;
  /** Calls and parses JSON (or `null` for an empty body). */
  call(
    method: string,
    pathname: string,
    session: TestSession,
    json?: unknown,
    // biome-ignore lint/suspicious/noExplicitAny: tests read JSON bodies of many shapes
  ): Promise<{ status: number; body: any; text: string }>;
  login(who?: 'alice' | 'bob'): Promise<TestSession>;
  close(): Promise<void>;
}

/**
 * Builds {@link ConnectionsTestApp}; `options` go to the connections service; `build` adjusts the runtime
 * before the app is built (e.g. a login terminal over a fake CLI).
 */
export async function createConnectionsTestApp(
  options: ConnectionServiceOptions = {},
  build?: (deps: HalRuntime) => void,
): Promise<ConnectionsTestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-conn-'));
  const dbFile = path.join(dataDir, 'hal.db');
  const database = openDatabase(dbFile);
  await migrateToLatest(database.db);
  const clock = createManualClock();
  const logLines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (line: string) => logLines.push(line) },
  });
  const deps = await createHalRuntime(
    { ...loadConfig({ HAL_DATA_DIR: dataDir }), passwordHashing: TEST_SCRYPT_PARAMS },
    { database, clock, logger, env: {}, connections: options, skill: 'HAL SKILL DOCUMENT (test)' },
  );
  const { connections } = deps;
  build?.(deps);
  const alice = await createOperator({ ...deps, passwordParams: TEST_SCRYPT_PARAMS }, 'alice');
  const bob = await createOperator({ ...deps, passwordParams: TEST_SCRYPT_PARAMS }, 'bob');
  const app = createApp(deps);

  const request: ConnectionsTestApp['request'] = sessionRequest(app);

  return {
    deps,
    connections,
    clock,
    dbFile,
    logLines,
    alice,
    bob,
    request,
    async call(method, pathname, session, json) {
      const response = await request(pathname, { method, session, ...(json === undefined ? {} : { json }) });
      const text = await response.text();
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = text;
      }
      return { status: response.status, body, text };
    },
    async login(who = 'alice') {
      const password = who === 'alice' ? alice.password : bob.password;
      const response = await request('/ops/login', { method: 'POST', json: { username: who, password } });
      if (response.status !== 200) throw new Error(`login failed: ${response.status}`);
      const body = (await response.json()) as { csrfToken: string };
      const cookie = sessionCookieFrom(response);
      if (cookie === null) throw new Error('login set no cookie');
      return { cookie, csrfToken: body.csrfToken };
    },
    async close() {
      await deps.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every byte of the database file and its WAL, as latin1 text (for "never stored" checks). */
export function databaseBytes(dbFile: string): string {
  return [dbFile, `${dbFile}-wal`]
    .filter((file) => fs.existsSync(file))
    .map((file) => fs.readFileSync(file).toString('latin1'))
    .join('\n');
}

/**
 * Writes a fake `claude` into `dir`: `--version` and `auth status` (JSON `{loggedIn}`, exit 1 when
 * logged out) behave like Claude Code's; a `-p` run records its argv in `claude-calls.jsonl` and
 * prints a JSON result.
 */
export function installFakeClaude(dir: string, behaviour: { loggedIn: boolean; version?: string }): string {
  const file = path.join(dir, 'claude');
  const script = `#!/usr/bin/env node
const argv = process.argv.slice(2);
if (argv[0] === '--version') { console.log(${JSON.stringify(behaviour.version ?? '2.1.197')} + ' (Claude Code)'); process.exit(0); }
if (argv[0] === 'auth' && argv[1] === 'status') {
  console.log(JSON.stringify({ loggedIn: ${behaviour.loggedIn} }));
  process.exit(${behaviour.loggedIn ? 0 : 1});
}
if (argv.includes('-p')) {
  require('node:fs').appendFileSync(require('node:path').join(__dirname, 'claude-calls.jsonl'), JSON.stringify(argv) + '\\n');
  console.log(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'hello from the fake cli' }));
  process.exit(0);
}
process.exit(2);
`;
  fs.writeFileSync(file, script, { mode: 0o755 });
  return file;
}

/** Writes a fake `codex` into `dir`: `--version`, and `login status` answering on stderr as Codex does. */
export function installFakeCodex(dir: string, behaviour: { loggedIn: boolean; version?: string }): string {
  const file = path.join(dir, 'codex');
  const script = `#!/usr/bin/env node
const argv = process.argv.slice(2);
if (argv[0] === '--version') { console.log('codex-cli ' + ${JSON.stringify(behaviour.version ?? '0.171.0')}); process.exit(0); }
if (argv[0] === 'login' && argv[1] === 'status') {
  console.error(${behaviour.loggedIn ? "'Logged in using ChatGPT'" : "'Not logged in'"});
  process.exit(${behaviour.loggedIn ? 0 : 1});
}
process.exit(2);
`;
  fs.writeFileSync(file, script, { mode: 0o755 });
  return file;
}
