// Test support (not exported): the built `hal serve` as a child process — the one spawner of every test that runs
// HAL as operators do (startup, PostgreSQL instances, the browser suites, the packaged `hal`, the hostile kills).
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureWorkspaceBuilt } from './workspace-build.test-support.js';

/** `apps/hal`. */
export const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The built `hal` command. */
export const cliPath = path.join(appDir, 'dist/cli.js');

/**
 * Builds `hal`'s `dist/` and every workspace library it runs when any is missing or older than its sources (CI
 * builds before testing; this is for direct `vitest` runs) and returns the path of `dist/cli.js`.
 */
export function ensureBuilt(): string {
  ensureWorkspaceBuilt('@hal-ai/hal');
  return cliPath;
}

/** A running `hal serve`: its process, what it printed so far, the URL it listens on, and how to end it. */
export interface HalProcess {
  child: ChildProcess;
  url: string;
  /** The first operator's one-time password (printed before "listening" on the first start only), else `null`. */
  password: string | null;
  stdout(): string;
  stderr(): string;
  /** stdout, then stderr. */
  output(): string;
  /** SIGTERM (nothing when it has ended already); resolves with its exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, as a crash or `kill -9` ends it; resolves once it has exited. */
  kill9(): Promise<void>;
}

/** Options of {@link startHalProcess}. */
export interface HalProcessOptions {
  /** The built `hal` (default {@link cliPath}; the packaging test runs an unpacked copy). */
  cli?: string;
  /** The working folder (default: this process's). */
  cwd?: string;
}

/**
 * Runs `hal serve` on `dataDir` at 127.0.0.1, port 0, with only PATH and HOME from this process and `env` added,
 * and resolves once it prints its "listening" line (rejects when it exits first, or after a minute).
 */
export function startHalProcess(
  dataDir: string,
  env: Record<string, string> = {},
  options: HalProcessOptions = {},
): Promise<HalProcess> {
  const child = spawn(process.execPath, [options.cli ?? cliPath, 'serve'], {
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dataDir,
      HAL_DATA_DIR: dataDir,
      HAL_PORT: '0',
      HAL_HOST: '127.0.0.1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  const stop = () => {
    if (!ended()) child.kill('SIGTERM');
    return exited;
  };
  const kill9 = async () => {
    if (!ended()) child.kill('SIGKILL');
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`hal serve did not start:\n${stdout}\n${stderr}`));
    }, 60_000);
    const early = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`hal serve exited with ${code}:\n${stdout}\n${stderr}`));
    };
    child.once('exit', early);
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      const url = /^HAL listening on (http:\/\/\S+)$/m.exec(stdout)?.[1];
      if (url === undefined) return;
      clearTimeout(timer);
      child.off('exit', early);
      resolve({
        child,
        url,
        password: /^password: (\S+)$/m.exec(stdout)?.[1] ?? null,
        stdout: () => stdout,
        stderr: () => stderr,
        output: () => `${stdout}\n${stderr}`,
        stop,
        kill9,
      });
    });
  });
}

/**
 * A running `hal serve` of {@link serve}.
 * @deprecated use {@link HalProcess}; kept while callers move.
 */
export type Started = HalProcess;

/**
 * Runs the built `hal serve` (with `env` added) and waits for its "listening" line.
 * @deprecated use {@link startHalProcess}; kept while callers move.
 */
export function serve(dataDir: string, env: Record<string, string> = {}): Promise<HalProcess> {
  return startHalProcess(dataDir, env);
}

/**
 * Stops a `hal serve` with SIGTERM (at once if it already ended) and resolves with its exit code.
 * @deprecated use {@link HalProcess.stop}; kept while callers move.
 */
export function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

/** A signed-in operator of a running HAL, over HTTP: JSON calls with its session cookie, CSRF token and Origin. */
export interface HttpSession {
  cookie: string;
  csrfToken: string;
  /** Sends and parses the JSON answer (`null` for an empty body). */
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON bodies of many shapes
  call(method: string, pathname: string, json?: unknown): Promise<{ status: number; body: any }>;
  /** Sends and never waits (the process may be killed before it answers). */
  fire(method: string, pathname: string, json?: unknown): void;
}

/** Logs `username` (default the first operator, `admin`) in at `url` with a fresh session of its own. */
export async function signInOverHttp(
  url: string,
  password: string,
  username = 'admin',
): Promise<HttpSession> {
  const login = await fetch(`${url}/ops/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ username, password }),
  });
  if (login.status !== 200) throw new Error(`login at ${url} failed: ${login.status} ${await login.text()}`);
  const cookie = /hal_session=[^;]+/.exec(login.headers.getSetCookie().join('\n'))?.[0] ?? '';
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
    cookie,
    csrfToken,
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
