import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCliProvider } from './cli-language-model.js';
import { parseCodexModelsCache, readCliModelList } from './cli-model-list.js';

// The shape Codex 0.171 writes to $CODEX_HOME/models_cache.json (fields HAL ignores trimmed).
const CACHE = {
  fetched_at: '2026-11-30T08:00:00Z',
  etag: 'W/"abc"',
  client_version: '0.171.0',
  models: [
    { slug: 'gpt-6.1-terra', display_name: 'GPT-6.1-Terra', visibility: 'list', priority: 3 },
    { slug: 'codex-auto-review', display_name: 'Codex Auto Review', visibility: 'hide', priority: 0 },
    { slug: 'gpt-6.2-sol', display_name: 'GPT-6.2-Sol', visibility: 'list', priority: 1 },
    { slug: 'gpt-acct-only', display_name: 'Account model', visibility: 'list', priority: 2 },
  ],
};

let home: string;
let codexHome: string;
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'hal-models-'));
  codexHome = path.join(home, 'codex-home');
  await mkdir(codexHome);
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('readCliModelList', () => {
  it('codex: the listed models of models_cache.json in priority order, hidden ones left out', async () => {
    await writeFile(path.join(codexHome, 'models_cache.json'), JSON.stringify(CACHE));
    await writeFile(
      path.join(codexHome, 'config.toml'),
      'model = "gpt-6.2-sol"\n[profiles.x]\nmodel = "no"\n',
    );
    const list = await readCliModelList('codex', { env: { CODEX_HOME: codexHome }, homedir: home });
    expect(list).toEqual({
      models: ['gpt-6.2-sol', 'gpt-acct-only', 'gpt-6.1-terra'],
      defaultModel: 'gpt-6.2-sol',
      source: 'cache',
    });
  });

  it('codex: ~/.codex of the home when CODEX_HOME is not set; a configured default missing from the cache leads', async () => {
    await mkdir(path.join(home, '.codex'));
    await writeFile(path.join(home, '.codex', 'models_cache.json'), JSON.stringify(CACHE));
    await writeFile(path.join(home, '.codex', 'config.toml'), "model = 'my-pinned'\n");
    const list = await readCliModelList('codex', { env: {}, homedir: home });
    expect(list.models).toEqual(['my-pinned', 'gpt-6.2-sol', 'gpt-acct-only', 'gpt-6.1-terra']);
    expect(list.source).toBe('cache');
  });

  it('codex without a cache (or with a broken one): only the configured default, marked as fallback', async () => {
    await writeFile(path.join(codexHome, 'config.toml'), 'model = "gpt-6.1-terra"\n');
    expect(await readCliModelList('codex', { env: { CODEX_HOME: codexHome }, homedir: home })).toEqual({
      models: ['gpt-6.1-terra'],
      defaultModel: 'gpt-6.1-terra',
      source: 'fallback',
    });
    await writeFile(path.join(codexHome, 'models_cache.json'), '{"models": "nope"');
    await rm(path.join(codexHome, 'config.toml'));
    expect(await readCliModelList('codex', { env: { CODEX_HOME: codexHome }, homedir: home })).toEqual({
      models: ['gpt-5.5'],
      defaultModel: null,
      source: 'fallback',
    });
  });

  it('never opens the credential files', async () => {
    const opened: string[] = [];
    await readCliModelList('codex', {
      env: { CODEX_HOME: codexHome },
      homedir: home,
      readFile: async (file) => {
        opened.push(path.basename(file));
        throw Object.assign(new Error('absent'), { code: 'ENOENT' });
      },
    });
    await readCliModelList('claude', {
      env: {},
      homedir: home,
      readFile: async (file) => {
        opened.push(path.basename(file));
        throw new Error('absent');
      },
    });
    expect(opened.sort()).toEqual(['config.toml', 'models_cache.json', 'settings.json']);
  });

  it('claude: the aliases, with the default from ~/.claude/settings.json first', async () => {
    await mkdir(path.join(home, '.claude'));
    await writeFile(path.join(home, '.claude', 'settings.json'), JSON.stringify({ model: 'claude-opus-x' }));
    const list = await readCliModelList('claude', { env: {}, homedir: home });
    expect(list.source).toBe('builtin');
    expect(list.defaultModel).toBe('claude-opus-x');
    expect(list.models.slice(0, 4)).toEqual(['claude-opus-x', 'sonnet', 'opus', 'haiku']);
  });

  it('parseCodexModelsCache refuses what is not a cache', () => {
    expect(parseCodexModelsCache('[]')).toBeUndefined();
    expect(parseCodexModelsCache('not json')).toBeUndefined();
    expect(parseCodexModelsCache('{"models": [{"slug": 3}, {"slug": "a"}, {"slug": "a"}]}')).toEqual(['a']);
  });
});

describe('createCliProvider().listModels', () => {
  it("codex lists the CLI's own cache (HOME and CODEX_HOME as the CLI sees them), plus the connection's model", async () => {
    await writeFile(path.join(codexHome, 'models_cache.json'), JSON.stringify(CACHE));
    const provider = createCliProvider({
      tool: 'codex',
      model: 'my-custom-model',
      env: { PATH: '/usr/bin', CODEX_HOME: codexHome },
      allowEnv: ['CODEX_HOME'],
      homedir: home,
    });
    expect((await provider.listModels()).map((model) => model.id)).toEqual([
      'my-custom-model',
      'gpt-6.2-sol',
      'gpt-acct-only',
      'gpt-6.1-terra',
    ]);
  });
});
