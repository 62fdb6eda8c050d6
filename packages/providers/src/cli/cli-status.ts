import os from 'node:os';
import {
  type CliDiscoverySettings,
  type CliSource,
  type CliTool,
  discoverCli,
  nodeCliFileSystem,
} from './cli-discovery.js';
import { clipMessage } from './cli-errors.js';
import { type CliModelSource, readCliModelList } from './cli-model-list.js';
import { CLI_LOGIN_COMMAND, CLI_LOGIN_HINT } from './cli-models.js';
import {
  buildCliEnvironment,
  type CliEnvironmentSettings,
  type CliSpawn,
  runCliProcess,
} from './cli-process.js';

/** Settings of {@link getCliStatus}. */
export interface CliStatusSettings extends CliDiscoverySettings, CliEnvironmentSettings {
  /** Use this executable instead of discovering one. */
  binPath?: string;
  spawn?: CliSpawn;
  /** Per command (`--version`, login status). Default 15 000 ms. */
  timeoutMs?: number;
  /**
   * Reads the CLI's non-secret settings file for the default model (`~/.claude/settings.json`,
   * `$CODEX_HOME/config.toml`). Credential files (`.credentials.json`, `auth.json`) are never read.
   */
  readFile?: (file: string) => Promise<string>;
}

/** What HAL knows about a local CLI: shown on the connections screen and stored by "Check". */
export interface CliStatus {
  tool: CliTool;
  found: boolean;
  path: string | null;
  source: CliSource | 'configured' | null;
  version: string | null;
  /** `null` when the status command could not be run or understood. */
  loggedIn: boolean | null;
  /** How to log in; set whenever `loggedIn` is not `true`. */
  loginHint: string | null;
  /** The exact command that logs it in (no sentence around it); set whenever `loggedIn` is not `true`. */
  loginCommand: string | null;
  /** The model configured in the CLI's own settings, if any. */
  defaultModel: string | null;
  /** The models the CLI offers (`readCliModelList`): Codex's own cache, Claude Code's aliases. */
  models: string[];
  /** Where {@link CliStatus.models} came from; `fallback` means Codex has written no model cache yet. */
  modelsSource: CliModelSource;
  /** Why a check failed, if it did (never the CLI's credentials). */
  error: string | null;
}

function parseVersion(output: string): string | null {
  return /\d+\.\d+\.\d+[\w.+-]*/.exec(output)?.[0] ?? null;
}

function parseLoggedInJson(stdout: string): boolean | undefined {
  const start = stdout.indexOf('{');
  const end = stdout.lastIndexOf('}');
  if (start < 0 || end < start) return undefined;
  try {
    const parsed = JSON.parse(stdout.slice(start, end + 1)) as { loggedIn?: unknown };
    return typeof parsed.loggedIn === 'boolean' ? parsed.loggedIn : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks a local CLI: finds it, runs `--version`, and asks for the login state (`claude auth status`,
 * which prints JSON and exits 1 when logged out; `codex login status`, which answers on stderr and
 * exits 1 with `Not logged in`), then reads the CLI's models and default from its own non-secret files
 * (`readCliModelList`). Every command runs with the minimal environment. Never throws.
 *
 * @example
 * const status = await getCliStatus('codex', { env: process.env });
 * if (status.found && status.loggedIn === false) console.log(status.loginHint);
 */
export async function getCliStatus(tool: CliTool, settings: CliStatusSettings = {}): Promise<CliStatus> {
  const env = settings.env ?? process.env;
  const home = settings.homedir ?? env.HOME ?? os.homedir();
  const status: CliStatus = {
    tool,
    found: false,
    path: null,
    source: null,
    version: null,
    loggedIn: null,
    loginHint: CLI_LOGIN_HINT[tool],
    loginCommand: CLI_LOGIN_COMMAND[tool],
    defaultModel: null,
    models: [],
    modelsSource: tool === 'claude' ? 'builtin' : 'fallback',
    error: null,
  };
  if (settings.binPath) {
    const executable = await (settings.fs ?? nodeCliFileSystem).isExecutable(settings.binPath);
    if (!executable) return { ...status, error: `${settings.binPath} is not an executable file` };
    Object.assign(status, { path: settings.binPath, source: 'configured' });
  } else {
    const found = await discoverCli(tool, { ...settings, homedir: home });
    if (!found) return { ...status, error: `${tool} was not found` };
    Object.assign(status, { path: found.path, source: found.source });
  }
  status.found = true;
  const command = status.path as string;
  // What the CLI itself sees: its settings and model cache are read from the same HOME and CODEX_HOME.
  const cliEnv = buildCliEnvironment({ ...settings, env, homedir: settings.homedir });
  const run = (args: string[]) =>
    runCliProcess({
      command,
      args,
      env: cliEnv,
      // The home may not exist (a fresh service account); status commands need no particular folder.
      cwd: os.tmpdir(),
      timeoutMs: settings.timeoutMs ?? 15_000,
      spawn: settings.spawn,
    });

  const version = await run(['--version']);
  status.version = version.exitCode === 0 ? parseVersion(version.stdout || version.stderr) : null;
  if (status.version === null) {
    status.error = version.spawnError
      ? clipMessage(version.spawnError.message)
      : version.timedOut
        ? `${tool} --version timed out`
        : clipMessage(version.stderr) || `${tool} --version failed`;
  }

  const login = await run(tool === 'claude' ? ['auth', 'status'] : ['login', 'status']);
  if (login.timedOut || login.spawnError) {
    status.error ??= login.timedOut
      ? `${tool} login status timed out`
      : clipMessage(String(login.spawnError));
  } else if (tool === 'claude') {
    status.loggedIn = parseLoggedInJson(login.stdout) ?? (login.exitCode === 0 ? true : null);
  } else {
    const text = `${login.stdout}\n${login.stderr}`;
    status.loggedIn = /not logged in/i.test(text) ? false : login.exitCode === 0 ? true : null;
  }
  if (status.loggedIn === true) {
    status.loginHint = null;
    status.loginCommand = null;
  }
  const list = await readCliModelList(tool, {
    env: cliEnv,
    homedir: cliEnv.HOME ?? home,
    ...(settings.readFile ? { readFile: settings.readFile } : {}),
  });
  status.defaultModel = list.defaultModel;
  status.models = list.models;
  status.modelsSource = list.source;
  return status;
}
