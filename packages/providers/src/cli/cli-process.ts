import { type ChildProcess, spawn as nodeSpawn, type SpawnOptions } from 'node:child_process';
import path from 'node:path';

/**
 * The subset of `child_process.spawn` the CLI adapters use. Inject it to observe or replace process
 * creation in tests; the default is Node's own `spawn`.
 */
export type CliSpawn = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

/** Variables every CLI needs to run at all; everything else must be named explicitly. */
export const CLI_BASE_ENV_NAMES = ['PATH', 'HOME', 'LANG', 'TERM'] as const;

/** Settings of {@link buildCliEnvironment}. */
export interface CliEnvironmentSettings {
  /** Where `PATH`, `HOME`, `LANG`, `TERM` (and the `allowEnv` names) are read from. Default: `process.env`. */
  env?: Record<string, string | undefined>;
  /** Further variable names copied from `env`, e.g. `CODEX_HOME` or `ANTHROPIC_BASE_URL`. */
  allowEnv?: readonly string[];
  /** Variables set explicitly for the CLI; they win over `env`. */
  extraEnv?: Record<string, string | undefined>;
  /** Overrides `HOME` (e.g. an isolated home for tests, or the service account's home). */
  homedir?: string;
}

/**
 * Builds the minimal environment of a CLI process: `PATH`, `HOME`, `LANG`, `TERM`, the names in
 * `allowEnv`, and `extraEnv`. The parent's other variables (API keys, vault keys, tokens) are never
 * forwarded, so a CLI cannot pick up credentials HAL holds for other connections.
 *
 * The directory of the running Node binary is appended to `PATH` because npm-installed CLIs start
 * with `#!/usr/bin/env node` and a service manager's `PATH` often lacks it.
 */
export function buildCliEnvironment(settings: CliEnvironmentSettings = {}): Record<string, string> {
  const source = settings.env ?? process.env;
  const result: Record<string, string> = {};
  for (const name of [...CLI_BASE_ENV_NAMES, ...(settings.allowEnv ?? [])]) {
    const value = source[name];
    if (value !== undefined) result[name] = value;
  }
  for (const [name, value] of Object.entries(settings.extraEnv ?? {})) {
    if (value !== undefined) result[name] = value;
  }
  if (settings.homedir !== undefined) result.HOME = settings.homedir;
  const nodeDir = path.dirname(process.execPath);
  const entries = (result.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(path.delimiter).filter(Boolean);
  if (!entries.includes(nodeDir)) entries.push(nodeDir);
  result.PATH = entries.join(path.delimiter);
  return result;
}

/** Settings of one {@link runCliProcess} call. */
export interface RunCliProcessSettings {
  command: string;
  args: readonly string[];
  /** The complete environment of the child (build it with {@link buildCliEnvironment}). */
  env: Record<string, string>;
  cwd?: string;
  /** Kills the process group after this many milliseconds. */
  timeoutMs: number;
  /** Time between SIGTERM and SIGKILL. Default 2000 ms. */
  killGraceMs?: number;
  abortSignal?: AbortSignal;
  spawn?: CliSpawn;
  /** Called with each complete stdout line as it arrives (JSONL streaming). */
  onStdoutLine?: (line: string) => void;
  /** Written to stdin, which is then closed; without it stdin is `/dev/null`. */
  stdin?: string;
  /** Caps the captured stdout/stderr (each); the rest is dropped. Default 8 MiB. */
  maxOutputBytes?: number;
}

/** What a CLI process did. Exactly one of `exitCode`/`signal` is usually set. */
export interface CliProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The process ran past `timeoutMs` and was killed. */
  timedOut: boolean;
  /** The abort signal fired and the process was killed. */
  aborted: boolean;
  /** The process could not be started (`ENOENT`, `EACCES`, …). */
  spawnError?: Error;
  /** The child's pid, if it started (its process group id too). */
  pid?: number;
}

/**
 * Runs a CLI in its own process group with stdin closed. On timeout or abort the whole group gets
 * SIGTERM, then SIGKILL after a grace period, so wrapper scripts and their children die too (the
 * `claude`/`codex` npm bins are shell or Node wrappers around a native binary). Never rejects.
 */
export function runCliProcess(settings: RunCliProcessSettings): Promise<CliProcessResult> {
  const spawn = settings.spawn ?? nodeSpawn;
  const maxBytes = settings.maxOutputBytes ?? 8 * 1024 * 1024;
  const killGraceMs = settings.killGraceMs ?? 2000;
  return new Promise((resolve) => {
    let child: ChildProcess;
    const base: CliProcessResult = {
      exitCode: null,
      signal: null,
      stdout: '',
      stderr: '',
      timedOut: false,
      aborted: false,
    };
    if (settings.abortSignal?.aborted) {
      resolve({ ...base, aborted: true });
      return;
    }
    try {
      child = spawn(settings.command, settings.args, {
        cwd: settings.cwd,
        env: settings.env,
        detached: true,
        stdio: [settings.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
    } catch (error) {
      resolve({ ...base, spawnError: error as Error });
      return;
    }
    const result: CliProcessResult = { ...base, pid: child.pid };
    if (settings.stdin !== undefined && child.stdin) {
      // A CLI that exits before reading everything closes the pipe: that is its answer, not ours to report.
      child.stdin.on('error', () => undefined);
      child.stdin.end(settings.stdin);
    }
    const stdoutChunks: Buffer[] = [];
    const stderrChunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stderrBytes = 0;
    let pendingLine = '';
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;

    const killGroup = (signal: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // The group is already gone, or the spawn was replaced by a non-detached fake: kill the child alone.
        try {
          child.kill(signal);
        } catch {}
      }
    };
    const terminate = (): void => {
      killGroup('SIGTERM');
      killTimer = setTimeout(() => killGroup('SIGKILL'), killGraceMs);
      killTimer.unref?.();
    };
    const timer = setTimeout(() => {
      result.timedOut = true;
      terminate();
    }, settings.timeoutMs);
    const onAbort = (): void => {
      result.aborted = true;
      terminate();
    };
    settings.abortSignal?.addEventListener('abort', onAbort, { once: true });

    child.stdout?.on('data', (chunk: Buffer) => {
      if (stdoutBytes < maxBytes) {
        stdoutChunks.push(chunk);
        stdoutBytes += chunk.length;
      }
      if (settings.onStdoutLine) {
        pendingLine += chunk.toString('utf8');
        let index = pendingLine.indexOf('\n');
        while (index >= 0) {
          const line = pendingLine.slice(0, index);
          pendingLine = pendingLine.slice(index + 1);
          settings.onStdoutLine(line);
          index = pendingLine.indexOf('\n');
        }
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderrBytes < maxBytes) {
        stderrChunks.push(chunk);
        stderrBytes += chunk.length;
      }
    });

    const finish = (update: Partial<CliProcessResult>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      settings.abortSignal?.removeEventListener('abort', onAbort);
      if (pendingLine && settings.onStdoutLine) settings.onStdoutLine(pendingLine);
      Object.assign(result, update, {
        stdout: Buffer.concat(stdoutChunks).toString('utf8'),
        stderr: Buffer.concat(stderrChunks).toString('utf8'),
      });
      if (result.timedOut || result.aborted) {
        // The leader is gone but a grandchild may still hold the group: make sure it dies too.
        killGroup('SIGKILL');
        if (killTimer) clearTimeout(killTimer);
      }
      resolve(result);
    };
    child.once('error', (error) => finish({ spawnError: error }));
    child.once('close', (exitCode, signal) => finish({ exitCode, signal }));
  });
}
