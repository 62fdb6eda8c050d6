import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorkspaceBuilder, readWorkspace } from './workspace-build.test-support.js';

let root: string;
let builds: string[];

/** Writes `file` under the temp workspace with its modification time `secondsAgo` in the past. */
function write(file: string, text: string, secondsAgo: number): void {
  const full = path.join(root, file);
  fs.mkdirSync(path.dirname(full), { recursive: true });
  fs.writeFileSync(full, text);
  const time = new Date(Date.now() - secondsAgo * 1000);
  fs.utimesSync(full, time, time);
}

/** A library with a `.` and a `./testing` export, built 100 s ago from sources written 200 s ago. */
function library(name: string, dependencies: Record<string, string> = {}): void {
  write(
    `packages/${name}/package.json`,
    JSON.stringify({
      name: `@t/${name}`,
      main: './dist/index.js',
      dependencies,
      exports: {
        '.': { '@hal-ai/source': './src/index.ts', types: './dist/index.d.ts', import: './dist/index.js' },
        './testing': { '@hal-ai/source': './src/testing.ts', import: './dist/testing.js' },
        './package.json': './package.json',
      },
    }),
    300,
  );
  write(`packages/${name}/src/index.ts`, 'export const a = 1;', 200);
  write(`packages/${name}/src/testing.ts`, 'export const b = 1;', 200);
  write(`packages/${name}/dist/index.js`, 'export const a = 1;', 100);
  write(`packages/${name}/dist/testing.js`, 'export const b = 1;', 100);
}

/** A builder whose "build" touches every output of the package folder it is given, and records the folder. */
function builder() {
  return createWorkspaceBuilder({
    root,
    copied: {},
    build: (dir) => {
      builds.push(path.relative(root, dir));
      for (const output of ['dist/index.js', 'dist/testing.js'])
        write(path.relative(root, path.join(dir, output)), '', 0);
    },
  });
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-workspace-build-'));
  builds = [];
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

describe('the workspace builder of the tests that run built code', () => {
  it('reads the outputs node runs from package.json, not the sources, declarations or the manifest', () => {
    library('spec');
    expect(readWorkspace(root).get('@t/spec')?.outputs.sort()).toEqual(['dist/index.js', 'dist/testing.js']);
  });

  it('builds nothing when every output is newer than every source', () => {
    library('spec');
    expect(builder().staleReason('@t/spec')).toBeNull();
    expect(builder().ensureBuilt('@t/spec')).toEqual([]);
    expect(builds).toEqual([]);
  });

  it('asks for a build when a source file is newer than the dist', () => {
    library('spec');
    write('packages/spec/src/deep/new-export.ts', 'export const c = 1;', 10);
    expect(builder().staleReason('@t/spec')).toBe(
      `${path.join('src', 'deep', 'new-export.ts')} is newer than ${path.join('dist', 'index.js')}`,
    );
    expect(builder().ensureBuilt('@t/spec')).toEqual(['@t/spec']);
    expect(builds).toEqual([path.join('packages', 'spec')]);
  });

  it('asks for a build when one exported entry is missing although dist/index.js is there', () => {
    library('spec');
    fs.rmSync(path.join(root, 'packages/spec/dist/testing.js'));
    expect(builder().staleReason('@t/spec')).toBe(`${path.join('dist', 'testing.js')} is missing`);
  });

  it('ignores a newer test file, and counts a newer package.json or tsup config', () => {
    library('spec');
    write('packages/spec/src/index.test.ts', '', 0);
    write('packages/spec/src/fakes.test-support.ts', '', 0);
    expect(builder().staleReason('@t/spec')).toBeNull();
    write('packages/spec/tsup.config.ts', 'export default {};', 0);
    expect(builder().staleReason('@t/spec')).toMatch(/^tsup\.config\.ts is newer than/);
  });

  it('builds stale dependencies first, and only the stale ones', () => {
    library('spec');
    library('tools', { '@t/spec': 'workspace:*' });
    library('rooms', { '@t/spec': 'workspace:*', '@t/tools': 'workspace:*', outside: '1.0.0' });
    write('packages/spec/src/index.ts', 'export const a = 2;', 10);
    write('packages/rooms/src/index.ts', 'export const a = 2;', 10);
    expect(builder().ensureBuilt('@t/rooms')).toEqual(['@t/spec', '@t/rooms']);
    expect(builder().ensureBuilt('@t/rooms')).toEqual([]);
  });

  it('counts the files a build copies in, and the files it writes besides the entries', () => {
    library('panel');
    library('app', { '@t/panel': 'workspace:*' });
    write('packages/app/dist/assets/panel.js', '', 100);
    const copying = createWorkspaceBuilder({
      root,
      copied: { '@t/app': { inputs: ['../panel/dist/index.js'], outputs: ['dist/assets/panel.js'] } },
      build: (dir) => builds.push(path.relative(root, dir)),
    });
    expect(copying.staleReason('@t/app')).toBeNull();
    write('packages/panel/dist/index.js', 'export const a = 3;', 10);
    expect(copying.staleReason('@t/app')).toMatch(/panel\/dist\/index\.js is newer than/);
    fs.rmSync(path.join(root, 'packages/app/dist/assets/panel.js'));
    expect(copying.staleReason('@t/app')).toBe(`${path.join('dist', 'assets', 'panel.js')} is missing`);
  });

  it('fails loudly when a build writes no output, and not when a source changes while it runs', () => {
    library('spec');
    write('packages/spec/src/index.ts', 'export const a = 2;', 10);
    const broken = createWorkspaceBuilder({ root, copied: {}, build: () => undefined });
    expect(() => broken.ensureBuilt('@t/spec')).toThrow(
      /@t\/spec was built, yet dist.index\.js was not written/,
    );
    // The lock is released after a failure: the next call runs (and fails the same way) instead of waiting.
    expect(() => broken.ensureBuilt('@t/spec')).toThrow(/was built, yet/);
    // An edit made while tsup runs leaves the package stale for the next run, not this run failed.
    const editedMeanwhile = createWorkspaceBuilder({
      root,
      copied: {},
      build: (dir) => {
        for (const output of ['dist/index.js', 'dist/testing.js'])
          write(path.relative(root, path.join(dir, output)), '', 0);
        write('packages/spec/src/index.ts', 'export const a = 3;', -5);
      },
    });
    expect(editedMeanwhile.ensureBuilt('@t/spec')).toEqual(['@t/spec']);
    expect(editedMeanwhile.staleReason('@t/spec')).toMatch(/^src.index\.ts is newer than/);
  });
});
