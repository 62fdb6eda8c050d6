import { constants as fsConstants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** The local CLIs HAL can drive. */
export type CliTool = 'claude' | 'codex';

/** Where a CLI candidate came from, in discovery order. */
export type CliSource = 'env' | 'hal_cli_dirs' | 'user' | 'system' | 'path';

/** One place a CLI may live. */
export interface CliCandidate {
  path: string;
  source: CliSource;
}

/** A discovered CLI: its absolute path and where it was found. */
export interface CliLocation extends CliCandidate {
  tool: CliTool;
}

/** The file checks discovery needs; inject to test without touching the disk. */
export interface CliFileSystem {
  /** True when `file` is a regular file the current user may execute. */
  isExecutable(file: string): Promise<boolean>;
}

/** Settings of {@link discoverCli} and {@link listCliCandidates}. */
export interface CliDiscoverySettings {
  /** Read for `CLAUDE_BIN`/`CODEX_BIN`, `HAL_CLI_DIRS` and `PATH`. Default: `process.env`. */
  env?: Record<string, string | undefined>;
  /** The home of the account HAL runs as. Default: `os.homedir()`. */
  homedir?: string;
  fs?: CliFileSystem;
}

const BIN_VARIABLE: Record<CliTool, string> = { claude: 'CLAUDE_BIN', codex: 'CODEX_BIN' };

/**
 * User install places, relative to the home directory. A service's `PATH` (systemd) rarely contains
 * them, which is why discovery looks here before `PATH`.
 */
export const CLI_USER_DIRS: readonly string[] = [
  '.local/bin',
  '.npm-global/bin',
  '.claude/local',
  '.codex/packages/standalone/current/bin',
  'node_modules/.bin',
  '.bun/bin',
  '.volta/bin',
];

/** System-wide install places, searched after the user's. */
export const CLI_SYSTEM_DIRS: readonly string[] = ['/usr/local/bin', '/usr/bin'];

/** The real file system check: a regular file with the execute bit for this user. */
export const nodeCliFileSystem: CliFileSystem = {
  async isExecutable(file) {
    try {
      const info = await stat(file);
      if (!info.isFile()) return false;
      await access(file, fsConstants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
};

function splitDirs(value: string | undefined): string[] {
  return (value ?? '').split(path.delimiter).filter((entry) => entry.length > 0);
}

/**
 * Every place {@link discoverCli} looks, in order: `CLAUDE_BIN`/`CODEX_BIN` → `HAL_CLI_DIRS` → user
 * install places → `/usr/local/bin`, `/usr/bin` → `PATH`. Duplicates keep their first position.
 */
export function listCliCandidates(tool: CliTool, settings: CliDiscoverySettings = {}): CliCandidate[] {
  const env = settings.env ?? process.env;
  const home = settings.homedir ?? os.homedir();
  const candidates: CliCandidate[] = [];
  const explicit = env[BIN_VARIABLE[tool]];
  if (explicit) candidates.push({ path: path.resolve(explicit), source: 'env' });
  for (const dir of splitDirs(env.HAL_CLI_DIRS)) {
    candidates.push({ path: path.resolve(dir, tool), source: 'hal_cli_dirs' });
  }
  for (const dir of CLI_USER_DIRS) candidates.push({ path: path.join(home, dir, tool), source: 'user' });
  for (const dir of CLI_SYSTEM_DIRS) candidates.push({ path: path.join(dir, tool), source: 'system' });
  for (const dir of splitDirs(env.PATH)) {
    // A relative PATH entry depends on the working directory: never trust it for a credentialed tool.
    if (path.isAbsolute(dir)) candidates.push({ path: path.join(dir, tool), source: 'path' });
  }
  const seen = new Set<string>();
  return candidates.filter((candidate) => {
    if (seen.has(candidate.path)) return false;
    seen.add(candidate.path);
    return true;
  });
}

/**
 * Finds the `claude` or `codex` executable the way an operator would expect on a server where HAL runs
 * as a service: the first executable candidate of {@link listCliCandidates}, or `undefined`.
 *
 * @example
 * const found = await discoverCli('claude', { env: process.env });
 * if (found) console.log(found.path, found.source); // '/home/hal/.local/bin/claude', 'user'
 */
export async function discoverCli(
  tool: CliTool,
  settings: CliDiscoverySettings = {},
): Promise<CliLocation | undefined> {
  const fs = settings.fs ?? nodeCliFileSystem;
  for (const candidate of listCliCandidates(tool, settings)) {
    if (await fs.isExecutable(candidate.path)) return { tool, ...candidate };
  }
  return undefined;
}
