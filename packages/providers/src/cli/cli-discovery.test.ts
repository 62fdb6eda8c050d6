import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverCli, listCliCandidates } from './cli-discovery.js';
import { createFakeBinDir, type FakeBinDir } from './cli-fake-bin.test-support.js';

let bins: FakeBinDir;
beforeEach(async () => {
  bins = await createFakeBinDir();
});
afterEach(async () => {
  await bins.cleanup();
});

describe('discoverCli', () => {
  it('follows CLAUDE_BIN → HAL_CLI_DIRS → user places → PATH, skipping what is missing', async () => {
    const home = path.join(bins.dir, 'home');
    const explicit = await bins.install('claude', {}, 'explicit');
    const halDir = path.join(bins.dir, 'hal-dir');
    await bins.install('claude', {}, 'hal-dir');
    await bins.install('claude', {}, 'home/.local/bin');
    await bins.install('claude', {}, 'on-path');
    const emptyHalDir = path.join(bins.dir, 'empty');
    await mkdir(emptyHalDir);
    const pathDir = path.join(bins.dir, 'on-path');
    const env = {
      CLAUDE_BIN: explicit,
      HAL_CLI_DIRS: [emptyHalDir, halDir].join(path.delimiter),
      PATH: pathDir,
    };

    expect(await discoverCli('claude', { env, homedir: home })).toEqual({
      tool: 'claude',
      path: explicit,
      source: 'env',
    });
    expect(await discoverCli('claude', { env: { ...env, CLAUDE_BIN: undefined }, homedir: home })).toEqual({
      tool: 'claude',
      path: path.join(halDir, 'claude'),
      source: 'hal_cli_dirs',
    });
    expect(await discoverCli('claude', { env: { PATH: pathDir }, homedir: home })).toEqual({
      tool: 'claude',
      path: path.join(home, '.local/bin/claude'),
      source: 'user',
    });
    expect(
      await discoverCli('claude', { env: { PATH: pathDir }, homedir: path.join(bins.dir, 'nohome') }),
    ).toEqual({ tool: 'claude', path: path.join(pathDir, 'claude'), source: 'path' });
  });

  it('a CLAUDE_BIN that is not executable falls through to the next place', async () => {
    const notExecutable = path.join(bins.dir, 'claude-plain');
    await writeFile(notExecutable, '#!/bin/sh\n');
    await chmod(notExecutable, 0o644);
    const onPath = await bins.install('claude', {}, 'on-path');
    const found = await discoverCli('claude', {
      env: { CLAUDE_BIN: notExecutable, PATH: path.dirname(onPath) },
      homedir: path.join(bins.dir, 'nohome'),
    });
    expect(found?.path).toBe(onPath);
  });

  it('does not find a tool that is nowhere', async () => {
    expect(
      await discoverCli('codex', {
        env: { PATH: path.join(bins.dir, 'none') },
        homedir: path.join(bins.dir, 'x'),
      }),
    ).toBeUndefined();
  });

  it('lists candidates in the documented order, system dirs before PATH, relative PATH entries ignored', () => {
    const candidates = listCliCandidates('codex', {
      env: {
        CODEX_BIN: '/opt/codex',
        HAL_CLI_DIRS: '/srv/bin',
        PATH: `relative/bin${path.delimiter}/opt/bin`,
      },
      homedir: '/home/hal',
    });
    expect(candidates.map((candidate) => `${candidate.source}:${candidate.path}`)).toEqual([
      'env:/opt/codex',
      'hal_cli_dirs:/srv/bin/codex',
      'user:/home/hal/.local/bin/codex',
      'user:/home/hal/.npm-global/bin/codex',
      'user:/home/hal/.claude/local/codex',
      'user:/home/hal/.codex/packages/standalone/current/bin/codex',
      'user:/home/hal/node_modules/.bin/codex',
      'user:/home/hal/.bun/bin/codex',
      'user:/home/hal/.volta/bin/codex',
      'system:/usr/local/bin/codex',
      'system:/usr/bin/codex',
      'path:/opt/bin/codex',
    ]);
  });

  it('uses an injected file system check', async () => {
    const found = await discoverCli('claude', {
      env: { PATH: '/somewhere' },
      homedir: '/home/hal',
      fs: { isExecutable: async (file) => file === '/usr/bin/claude' },
    });
    expect(found).toEqual({ tool: 'claude', path: '/usr/bin/claude', source: 'system' });
  });
});
