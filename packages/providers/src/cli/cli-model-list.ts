import { readFile as nodeReadFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CliTool } from './cli-discovery.js';
import { CLAUDE_CODE_MODELS, CLI_DEFAULT_MODEL } from './cli-models.js';

/** Where a CLI's model list came from. */
export type CliModelSource =
  /** Codex's own `models_cache.json` (what the logged-in account may use, as Codex last fetched it). */
  | 'cache'
  /** Claude Code's aliases and current names ({@link CLAUDE_CODE_MODELS}): Claude Code keeps no list on disk. */
  | 'builtin'
  /** Codex without a readable cache: only the configured default (or {@link CLI_DEFAULT_MODEL}). */
  | 'fallback';

/** A CLI's models, its own default and where the list came from. */
export interface CliModelList {
  models: string[];
  /** The model configured in the CLI's own settings (`~/.claude/settings.json`, `config.toml`), if any. */
  defaultModel: string | null;
  source: CliModelSource;
}

/** Settings of {@link readCliModelList}. */
export interface CliModelListSettings {
  /** Read for `CODEX_HOME`. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** The home of the account HAL runs as. Default `env.HOME`, then `os.homedir()`. */
  homedir?: string;
  /** Reads a non-secret settings file. Credential files (`.credentials.json`, `auth.json`) are never read. */
  readFile?: (file: string) => Promise<string>;
}

/** One entry of Codex's `models_cache.json` `models` (the fields HAL uses; Codex writes many more). */
interface CodexCachedModel {
  slug?: unknown;
  visibility?: unknown;
  priority?: unknown;
}

/**
 * The model slugs of a Codex `models_cache.json` (`{fetched_at, etag?, client_version?, models: [{slug,
 * display_name, visibility, priority, …}]}`): entries Codex hides from its own picker (`visibility: "hide"`,
 * internal models such as auto-review) are left out, the rest ordered by `priority` as Codex orders them.
 * Returns `undefined` for a text that is not such a file.
 */
export function parseCodexModelsCache(text: string): string[] | undefined {
  let parsed: { models?: unknown };
  try {
    parsed = JSON.parse(text) as { models?: unknown };
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object' || !Array.isArray(parsed.models)) return undefined;
  const entries = (parsed.models as CodexCachedModel[])
    .filter((entry) => entry && typeof entry.slug === 'string' && entry.slug.trim() !== '')
    .filter((entry) => entry.visibility !== 'hide')
    .map((entry, index) => ({
      slug: (entry.slug as string).trim(),
      priority: typeof entry.priority === 'number' ? entry.priority : Number.POSITIVE_INFINITY,
      index,
    }))
    .sort((a, b) => a.priority - b.priority || a.index - b.index);
  return [...new Set(entries.map((entry) => entry.slug))];
}

/** The top-level `model = "…"` of a Codex `config.toml`; the same key inside a table (a profile) is not the default. */
export function parseCodexDefaultModel(text: string): string | null {
  for (const line of text.split('\n')) {
    if (/^\s*\[/.test(line)) break;
    const match = /^\s*model\s*=\s*["']([^"']+)["']/.exec(line);
    if (match?.[1]) return match[1];
  }
  return null;
}

async function readOptional(read: (file: string) => Promise<string>, file: string): Promise<string | null> {
  try {
    return await read(file);
  } catch {
    return null;
  }
}

/**
 * The models a local CLI offers, read from the CLI's own non-secret files:
 * - **codex**: `$CODEX_HOME/models_cache.json` (default `~/.codex`), which Codex writes after fetching the account's
 *   model list; the default is the top-level `model` of `$CODEX_HOME/config.toml`. Without a readable cache the list is
 *   only that default, or {@link CLI_DEFAULT_MODEL} (`source: 'fallback'`).
 * - **claude**: {@link CLAUDE_CODE_MODELS} (`source: 'builtin'`); the default is `model` of `~/.claude/settings.json`.
 * The configured default is always on the list. Never throws.
 *
 * @example
 * const { models, defaultModel, source } = await readCliModelList('codex', { env: process.env });
 */
export async function readCliModelList(
  tool: CliTool,
  settings: CliModelListSettings = {},
): Promise<CliModelList> {
  const env = settings.env ?? process.env;
  const home = settings.homedir ?? env.HOME ?? os.homedir();
  const read = settings.readFile ?? ((file: string) => nodeReadFile(file, 'utf8'));
  if (tool === 'claude') {
    const text = await readOptional(read, path.join(home, '.claude', 'settings.json'));
    let defaultModel: string | null = null;
    try {
      const model = text === null ? undefined : (JSON.parse(text) as { model?: unknown }).model;
      defaultModel = typeof model === 'string' && model.trim() !== '' ? model.trim() : null;
    } catch {
      defaultModel = null;
    }
    const models = [...CLAUDE_CODE_MODELS];
    if (defaultModel && !models.includes(defaultModel)) models.unshift(defaultModel);
    return { models, defaultModel, source: 'builtin' };
  }
  const codexHome = env.CODEX_HOME ?? path.join(home, '.codex');
  const [config, cache] = await Promise.all([
    readOptional(read, path.join(codexHome, 'config.toml')),
    readOptional(read, path.join(codexHome, 'models_cache.json')),
  ]);
  const defaultModel = config === null ? null : parseCodexDefaultModel(config);
  const cached = cache === null ? undefined : parseCodexModelsCache(cache);
  if (!cached || cached.length === 0) {
    return { models: [defaultModel ?? CLI_DEFAULT_MODEL.codex], defaultModel, source: 'fallback' };
  }
  if (defaultModel && !cached.includes(defaultModel)) cached.unshift(defaultModel);
  return { models: cached, defaultModel, source: 'cache' };
}
