// Test support (not exported): the HAL app over a real SQLite file and a real vault with the
// connections service wired in, plus a real OAuth authorization server (node:http on 127.0.0.1)
// that checks what a real one checks — PKCE S256, the exact redirect URI, client authentication,
// single-use codes, rotating refresh tokens — and an OpenRouter-style key endpoint.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  createManualClock,
  type ManualClock,
  sessionCookieFrom,
  sessionRequest,
  TEST_SCRYPT_PARAMS,
  type TestSession,
} from '../../../test/foundation-harness.js';
import { createApp } from '../../app.js';
import { createOperator } from '../../auth/auth-operators.js';
import { loadConfig } from '../../config.js';
import { openDatabase } from '../../db/database.js';
import { migrateToLatest } from '../../db/migrate.js';
import { type AppDeps, createDeps } from '../../deps.js';
import type { Operator } from '../../http/env.js';
import { createLogger } from '../../logger.js';
import { createAppVault } from '../../secrets/index.js';
import {
  type ConnectionManager,
  type ConnectionServiceOptions,
  createConnectionService,
} from './connection-service.js';

/** A secret generated for this run (never a key-looking literal in source). */
export function generatedSecret(): string {
  return randomBytes(24).toString('base64url');
}

/** The app with connections over a temp-file database. */
export interface ConnectionsTestApp {
  deps: AppDeps;
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

/** Builds {@link ConnectionsTestApp}; `options` go to the connections service. */
export async function createConnectionsTestApp(
  options: ConnectionServiceOptions = {},
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
  const vault = await createAppVault({ db: database.db, config: { dataDir }, env: {} });
  const deps = createDeps({
    db: database.db,
    sqlite: database.sqlite,
    config: loadConfig({ HAL_DATA_DIR: dataDir }),
    clock,
    logger,
    redact: (value) => vault.redact(value),
  });
  const connections = createConnectionService({ ...deps, vault }, options);
  deps.vault = vault;
  deps.connections = connections;
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
      await database.close();
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

/** A running fake authorization server. */
export interface FakeAuthorizationServer {
  url: string;
  clientId: string;
  clientSecret: string;
  /** Token endpoint calls by grant type. */
  calls: { authorization_code: number; refresh_token: number; keys: number };
  /** Access tokens issued, in order. */
  issuedAccessTokens: string[];
  /** The key the OpenRouter-style endpoint issued last. */
  issuedKeys: string[];
  /** Makes token responses wait this long (to overlap concurrent callers). */
  delayMs: number;
  /** Revokes every refresh token (the next refresh gets `invalid_grant`). */
  revokeAll(): void;
  close(): Promise<void>;
}

const base64url = (buffer: Buffer) => buffer.toString('base64url');

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
}

/** Starts the fake on 127.0.0.1:0; `redirectUri` is the only one it accepts. */
export async function startFakeAuthorizationServer(settings: {
  redirectUri: string;
  /** The access token of each grant; default random. */
  nextAccessToken?: () => string;
  /** The key of each OpenRouter-style issuance; default random. */
  nextKey?: () => string;
}): Promise<FakeAuthorizationServer> {
  const clientId = `client-${generatedSecret().slice(0, 8)}`;
  const clientSecret = generatedSecret();
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const keyCodes = new Map<string, string>();
  const refreshTokens = new Set<string>();

  const state: FakeAuthorizationServer = {
    url: '',
    clientId,
    clientSecret,
    calls: { authorization_code: 0, refresh_token: 0, keys: 0 },
    issuedAccessTokens: [],
    issuedKeys: [],
    delayMs: 0,
    revokeAll: () => refreshTokens.clear(),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', state.url);
    if (request.method === 'GET' && url.pathname === '/authorize') {
      // Stands in for the login page: checks the request, then redirects back with a code.
      const params = url.searchParams;
      if (
        params.get('client_id') !== clientId ||
        params.get('redirect_uri') !== settings.redirectUri ||
        params.get('response_type') !== 'code' ||
        params.get('code_challenge_method') !== 'S256'
      ) {
        json(response, 400, { error: 'invalid_request' });
        return;
      }
      const code = generatedSecret();
      codes.set(code, {
        challenge: params.get('code_challenge') ?? '',
        redirectUri: params.get('redirect_uri') ?? '',
      });
      const back = new URL(settings.redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', params.get('state') ?? '');
      response.writeHead(302, { location: back.toString() });
      response.end();
      return;
    }
    if (request.method === 'GET' && url.pathname === '/openrouter/auth') {
      const callback = url.searchParams.get('callback_url') ?? '';
      if (
        !callback.startsWith(`${settings.redirectUri}?`) ||
        url.searchParams.get('code_challenge_method') !== 'S256'
      ) {
        json(response, 400, { error: 'invalid_request' });
        return;
      }
      const code = generatedSecret();
      keyCodes.set(code, url.searchParams.get('code_challenge') ?? '');
      const back = new URL(callback);
      back.searchParams.set('code', code);
      response.writeHead(302, { location: back.toString() });
      response.end();
      return;
    }
    if (request.method === 'POST' && url.pathname === '/openrouter/keys') {
      state.calls.keys += 1;
      const body = JSON.parse(await readBody(request)) as Record<string, string>;
      const challenge = body.code ? keyCodes.get(body.code) : undefined;
      const computed = base64url(
        createHash('sha256')
          .update(body.code_verifier ?? '')
          .digest(),
      );
      if (!challenge || body.code_challenge_method !== 'S256' || computed !== challenge) {
        json(response, 403, { error: { message: 'Invalid code or code_verifier', code: 403 } });
        return;
      }
      keyCodes.delete(body.code as string);
      const key = settings.nextKey?.() ?? generatedSecret();
      state.issuedKeys.push(key);
      json(response, 200, { key, user_id: 'user-1' });
      return;
    }
    if (request.method !== 'POST' || url.pathname !== '/token') {
      json(response, 404, { error: 'not_found' });
      return;
    }
    const fields = Object.fromEntries(new URLSearchParams(await readBody(request)));
    if (state.delayMs) await new Promise((resolve) => setTimeout(resolve, state.delayMs));
    if (fields.client_id !== clientId || fields.client_secret !== clientSecret) {
      json(response, 401, { error: 'invalid_client' });
      return;
    }
    if (fields.grant_type === 'authorization_code') {
      state.calls.authorization_code += 1;
      const issued = fields.code ? codes.get(fields.code) : undefined;
      const computed = base64url(
        createHash('sha256')
          .update(fields.code_verifier ?? '')
          .digest(),
      );
      if (!issued || issued.redirectUri !== fields.redirect_uri || issued.challenge !== computed) {
        json(response, 400, {
          error: 'invalid_grant',
          error_description: 'code, verifier or redirect_uri mismatch',
        });
        return;
      }
      codes.delete(fields.code as string);
    } else if (fields.grant_type === 'refresh_token') {
      state.calls.refresh_token += 1;
      if (!fields.refresh_token || !refreshTokens.delete(fields.refresh_token)) {
        json(response, 400, { error: 'invalid_grant', error_description: 'refresh token revoked or reused' });
        return;
      }
    } else {
      json(response, 400, { error: 'unsupported_grant_type' });
      return;
    }
    const refresh = generatedSecret();
    refreshTokens.add(refresh);
    const accessToken = settings.nextAccessToken?.() ?? generatedSecret();
    state.issuedAccessTokens.push(accessToken);
    json(response, 200, {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: refresh,
      scope: 'models',
    });
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => json(response, 500, { error: 'server_error' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.url = `http://127.0.0.1:${port}`;
  return state;
}

/** Follows the fake's login redirect like a browser and returns where it sends the browser back to. */
export async function followLogin(authorizeUrl: string): Promise<URL> {
  const response = await fetch(authorizeUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (response.status !== 302 || !location) throw new Error(`login failed: ${response.status}`);
  return new URL(location);
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
