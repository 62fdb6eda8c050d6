import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFakeBinDir, type FakeBinDir } from './cli-fake-bin.test-support.js';
import { getCliStatus } from './cli-status.js';

let bins: FakeBinDir;
beforeEach(async () => {
  bins = await createFakeBinDir();
});
afterEach(async () => {
  await bins.cleanup();
});

describe('getCliStatus with fake executables', () => {
  it('reports a missing CLI as not found, with the login hint still available', async () => {
    const status = await getCliStatus('claude', {
      env: { PATH: path.join(bins.dir, 'none') },
      homedir: path.join(bins.dir, 'home'),
    });
    expect(status).toMatchObject({ tool: 'claude', found: false, path: null, version: null, loggedIn: null });
    expect(status.error).toMatch(/not found/);
  });

  it('claude: version, logged out (exit 1 with JSON), default model from settings.json', async () => {
    const home = path.join(bins.dir, 'home');
    await mkdir(path.join(home, '.claude'), { recursive: true });
    await writeFile(path.join(home, '.claude', 'settings.json'), JSON.stringify({ model: 'opus' }));
    const bin = await bins.install('claude', { version: '2.3.4', loggedIn: false }, 'bin');
    const status = await getCliStatus('claude', { env: { PATH: path.dirname(bin) }, homedir: home });
    expect(status).toMatchObject({
      found: true,
      path: bin,
      source: 'path',
      version: '2.3.4',
      loggedIn: false,
      defaultModel: 'opus',
    });
    expect(status.loginHint).toContain('claude auth login');
    expect((await bins.calls('bin')).map((call) => call.argv)).toEqual([['--version'], ['auth', 'status']]);
  });

  it('codex: logged in answers on stderr; default model from $CODEX_HOME/config.toml top level only', async () => {
    const codexHome = path.join(bins.dir, 'codex-home');
    await mkdir(codexHome);
    await writeFile(
      path.join(codexHome, 'config.toml'),
      'model = "gpt-5.5"\n\n[profiles.fast]\nmodel = "other"\n',
    );
    await writeFile(
      path.join(codexHome, 'models_cache.json'),
      JSON.stringify({
        fetched_at: '2026-11-30T08:00:00Z',
        models: [{ slug: 'gpt-acct', visibility: 'list' }],
      }),
    );
    const bin = await bins.install('codex', { version: '0.171.0', loggedIn: true });
    const status = await getCliStatus('codex', {
      binPath: bin,
      env: { PATH: '/usr/bin:/bin', CODEX_HOME: codexHome },
      allowEnv: ['CODEX_HOME'],
      homedir: path.join(bins.dir, 'home'),
    });
    expect(status).toMatchObject({
      found: true,
      source: 'configured',
      version: '0.171.0',
      loggedIn: true,
      loginHint: null,
      loginCommand: null,
      defaultModel: 'gpt-5.5',
      models: ['gpt-5.5', 'gpt-acct'],
      modelsSource: 'cache',
    });
    const [call] = await bins.calls();
    expect(call?.env.CODEX_HOME).toBe(codexHome);
  });

  it('codex: "Not logged in" on stderr with exit 1 → loggedIn false', async () => {
    const bin = await bins.install('codex', { loggedIn: false });
    const status = await getCliStatus('codex', {
      binPath: bin,
      env: { PATH: '/usr/bin:/bin' },
      homedir: bins.dir,
    });
    expect(status.loggedIn).toBe(false);
    expect(status.loginHint).toContain('codex login');
  });

  it('a configured path that is not executable is reported, not run', async () => {
    const status = await getCliStatus('codex', {
      binPath: path.join(bins.dir, 'missing'),
      homedir: bins.dir,
    });
    expect(status.found).toBe(false);
    expect(status.error).toMatch(/not an executable/);
  });
});
