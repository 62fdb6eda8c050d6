import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HalError } from '@hal-ai/spec';
import * as tar from 'tar';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ArtifactRef } from '../core/agent.js';
import { createLocalAgent } from './agent-local.js';
import { createMetricsReader } from './agent-metrics.js';

let work: string;

beforeEach(async () => {
  work = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'hal-agent-local-'));
});
afterEach(async () => {
  await fs.promises.rm(work, { recursive: true, force: true });
});

/** Builds a real `.tar.gz` release from `files` and describes it as HAL would. */
async function makeArtifact(
  module: string,
  version: string,
  files: Record<string, string>,
): Promise<ArtifactRef> {
  const source = path.join(work, `src-${module}-${version}`);
  for (const [name, text] of Object.entries(files)) {
    await fs.promises.mkdir(path.dirname(path.join(source, name)), { recursive: true });
    await fs.promises.writeFile(path.join(source, name), text);
  }
  const file = path.join(work, `${module}-${version}.tar.gz`);
  await tar.create({ gzip: true, file, cwd: source, portable: true }, Object.keys(files));
  const bytes = await fs.promises.readFile(file);
  return {
    module,
    version,
    path: file,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    size: bytes.length,
  };
}

function link(agentRoot: string, module: string, name: string): string | null {
  try {
    return fs.readlinkSync(path.join(agentRoot, module, name));
  } catch {
    return null;
  }
}

async function expectHalError(promise: Promise<unknown>, code: string): Promise<HalError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(HalError.isInstance(error), `expected HalError ${code}, got ${String(error)}`).toBe(true);
  expect((error as HalError).code).toBe(code);
  return error as HalError;
}

describe('createLocalAgent', () => {
  it('reports real, sane metrics of this machine', async () => {
    const agent = createLocalAgent({ serverId: 'local', dataDir: path.join(work, 'data'), cpuSampleMs: 50 });
    const metrics = await agent.metrics();
    expect(metrics.memory.totalBytes).toBeGreaterThan(0);
    expect(metrics.memory.usedBytes).toBeGreaterThan(0);
    expect(metrics.memory.usedBytes).toBeLessThanOrEqual(metrics.memory.totalBytes);
    expect(metrics.disk.totalBytes).toBeGreaterThan(0);
    expect(metrics.disk.freeBytes).toBeLessThanOrEqual(metrics.disk.totalBytes);
    expect(metrics.load).toHaveLength(3);
    for (const value of metrics.load) expect(value).toBeGreaterThanOrEqual(0);
    expect(metrics.uptimeS).toBeGreaterThan(0);
    expect(Number.isNaN(Date.parse(metrics.at))).toBe(false);
    if (metrics.cpuPercent !== null) {
      expect(metrics.cpuPercent).toBeGreaterThanOrEqual(0);
      expect(metrics.cpuPercent).toBeLessThanOrEqual(100);
    }
  });

  it('computes CPU % from two samples of the injected os and disk from the injected statfs', async () => {
    let calls = 0;
    const fakeOs = {
      // 1st sample: 100 busy of 1000; 2nd: 400 busy of 2000 → 300/1000 = 30 %.
      cpus: () => {
        calls += 1;
        const idle = calls === 1 ? 900 : 1600;
        const user = calls === 1 ? 100 : 400;
        return [{ times: { user, nice: 0, sys: 0, idle, irq: 0 } }];
      },
      totalmem: () => 8_000,
      freemem: () => 3_000,
      loadavg: () => [0.5, 0.25, 0.125],
      uptime: () => 1234.9,
    };
    const agent = createLocalAgent({
      serverId: 'local',
      dataDir: work,
      os: fakeOs,
      statfs: async () => ({ bsize: 4096, blocks: 10, bavail: 4 }),
      clock: { now: () => Date.UTC(2026, 0, 2) },
      cpuSampleMs: 1,
    });
    expect(await agent.metrics()).toEqual({
      at: '2026-01-02T00:00:00.000Z',
      cpuPercent: 30,
      memory: { totalBytes: 8_000, usedBytes: 5_000 },
      disk: { path: path.resolve(work), totalBytes: 40_960, freeBytes: 16_384 },
      load: [0.5, 0.25, 0.125],
      uptimeS: 1234,
    });
  });

  it('samples again when a second reading comes before the CPU counters moved, instead of answering unknown', async () => {
    // Readings: 1st sample 100/1000; 2nd 400/2000 (first metrics → 30 %); the next metrics call reads the same
    // counters again (no tick passed), then after the interval 600/2500 → (600-400)/(2500-2000) = 40 %.
    const samples = [
      { user: 100, idle: 900 },
      { user: 400, idle: 1600 },
      { user: 400, idle: 1600 },
      { user: 600, idle: 1900 },
    ];
    let calls = 0;
    let sleeps = 0;
    const fakeOs = {
      cpus: () => {
        const sample = samples[Math.min(calls, samples.length - 1)] as { user: number; idle: number };
        calls += 1;
        return [{ times: { user: sample.user, nice: 0, sys: 0, idle: sample.idle, irq: 0 } }];
      },
      totalmem: () => 8_000,
      freemem: () => 3_000,
      loadavg: () => [0, 0, 0],
      uptime: () => 10,
    };
    const readMetrics = createMetricsReader({
      dataDir: work,
      os: fakeOs,
      statfs: async () => ({ bsize: 4096, blocks: 10, bavail: 4 }),
      cpuSampleMs: 1,
      sleep: async () => {
        sleeps += 1;
      },
    });
    expect((await readMetrics()).cpuPercent).toBe(30);
    expect((await readMetrics()).cpuPercent).toBe(40);
    expect(sleeps).toBe(2);
  });

  it('deploys, keeps the previous release, rolls back, and lists the actual state', async () => {
    const agent = createLocalAgent({ serverId: 'srv-1', dataDir: path.join(work, 'data') });
    const logs: string[] = [];
    const v1 = await makeArtifact('portal', '1.0.0', {
      'index.html': 'one',
      'manifest.json': '{"version":"1.0.0"}',
    });
    const v2 = await makeArtifact('portal', '2.0.0', { 'index.html': 'two', 'lib/app.js': 'x' });

    expect(await agent.deploy(v1, (line) => logs.push(line))).toEqual({ current: '1.0.0', previous: null });
    expect(agent.root).toBe(path.join(work, 'data', 'agents', 'srv-1'));
    expect(link(agent.root, 'portal', 'current')).toBe('1.0.0');
    expect(fs.readFileSync(path.join(agent.root, 'portal', 'current', 'index.html'), 'utf8')).toBe('one');
    expect(await agent.health('portal')).toMatchObject({ ok: true });

    expect(await agent.deploy(v2, (line) => logs.push(line))).toEqual({
      current: '2.0.0',
      previous: '1.0.0',
    });
    expect(link(agent.root, 'portal', 'current')).toBe('2.0.0');
    expect(link(agent.root, 'portal', 'previous')).toBe('1.0.0');
    expect(fs.readFileSync(path.join(agent.root, 'portal', 'current', 'lib', 'app.js'), 'utf8')).toBe('x');
    expect(await agent.modules()).toEqual([{ module: 'portal', current: '2.0.0', previous: '1.0.0' }]);

    expect(await agent.rollback('portal', (line) => logs.push(line))).toEqual({
      current: '1.0.0',
      previous: '2.0.0',
    });
    expect(link(agent.root, 'portal', 'current')).toBe('1.0.0');
    expect(fs.readFileSync(path.join(agent.root, 'portal', 'current', 'index.html'), 'utf8')).toBe('one');
    expect(logs.some((line) => line.includes('sha256 verified'))).toBe(true);
    // No temporary folders or links are left behind.
    expect(fs.readdirSync(path.join(agent.root, 'portal')).sort()).toEqual([
      '1.0.0',
      '2.0.0',
      'current',
      'previous',
    ]);
  });

  it('refuses an artifact whose sha256 does not match and switches nothing', async () => {
    const agent = createLocalAgent({ serverId: 'srv-1', dataDir: path.join(work, 'data') });
    const v1 = await makeArtifact('portal', '1.0.0', { 'index.html': 'one' });
    await agent.deploy(v1, () => {});
    const v2 = await makeArtifact('portal', '2.0.0', { 'index.html': 'two' });
    const forged = { ...v2, sha256: createHash('sha256').update('something else').digest('hex') };

    const error = await expectHalError(
      agent.deploy(forged, () => {}),
      'checksum_mismatch',
    );
    expect(error.status).toBe(400);
    expect(link(agent.root, 'portal', 'current')).toBe('1.0.0');
    expect(link(agent.root, 'portal', 'previous')).toBeNull();
    expect(fs.readdirSync(path.join(agent.root, 'portal')).sort()).toEqual(['1.0.0', 'current']);
  });

  it('refuses an archive with a path-traversal entry and writes nothing outside', async () => {
    const agent = createLocalAgent({ serverId: 'srv-1', dataDir: path.join(work, 'data') });
    const source = path.join(work, 'evil-src', 'inner');
    await fs.promises.mkdir(source, { recursive: true });
    await fs.promises.writeFile(path.join(source, 'ok.txt'), 'fine');
    await fs.promises.writeFile(path.join(work, 'evil-src', 'evil'), 'pwned');
    const file = path.join(work, 'evil.tar.gz');
    await tar.create({ gzip: true, file, cwd: source, preservePaths: true }, ['ok.txt', '../evil']);
    const entries: string[] = [];
    await tar.t({ file, onReadEntry: (entry) => entries.push(entry.path) });
    expect(entries).toContain('../evil');
    const bytes = await fs.promises.readFile(file);
    const artifact = {
      module: 'portal',
      version: '6.6.6',
      path: file,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      size: bytes.length,
    };

    const refused = await expectHalError(
      agent.deploy(artifact, () => {}),
      'validation_failed',
    );
    expect(refused.message).toContain('../evil');
    expect(fs.existsSync(path.join(agent.root, 'portal', 'evil'))).toBe(false);
    expect(fs.existsSync(path.join(agent.root, 'evil'))).toBe(false);
    expect(fs.readdirSync(path.join(agent.root, 'portal'))).toEqual([]);
    expect(await agent.modules()).toEqual([{ module: 'portal', current: null, previous: null }]);
  });

  it('refuses an archive carrying a symbolic link', async () => {
    const agent = createLocalAgent({ serverId: 'srv-1', dataDir: path.join(work, 'data') });
    const source = path.join(work, 'link-src');
    await fs.promises.mkdir(source, { recursive: true });
    await fs.promises.symlink('/etc/passwd', path.join(source, 'passwd'));
    const file = path.join(work, 'link.tar.gz');
    await tar.create({ gzip: true, file, cwd: source }, ['passwd']);
    const bytes = await fs.promises.readFile(file);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    await expectHalError(
      agent.deploy({ module: 'portal', version: '1.0.0', path: file, sha256, size: bytes.length }, () => {}),
      'validation_failed',
    );
    expect(fs.existsSync(path.join(agent.root, 'portal', '1.0.0'))).toBe(false);
  });

  it('refuses names that could leave the folder, and rollback of a module with nothing to go back to', async () => {
    const agent = createLocalAgent({ serverId: 'srv-1', dataDir: path.join(work, 'data') });
    const v1 = await makeArtifact('portal', '1.0.0', { 'index.html': 'one' });
    await expectHalError(
      agent.deploy({ ...v1, module: '../portal' }, () => {}),
      'validation_failed',
    );
    await expectHalError(
      agent.deploy({ ...v1, version: 'current' }, () => {}),
      'validation_failed',
    );
    await expectHalError(
      agent.rollback('..', () => {}),
      'validation_failed',
    );

    const unknown = await expectHalError(
      agent.rollback('ghost', () => {}),
      'invalid_state',
    );
    expect(unknown.status).toBe(409);
    await agent.deploy(v1, () => {});
    await expectHalError(
      agent.rollback('portal', () => {}),
      'invalid_state',
    );
    expect(link(agent.root, 'portal', 'current')).toBe('1.0.0');
  });

  it('drops set-uid bits from unpacked files and clears leftovers of an interrupted deploy', async () => {
    const agent = createLocalAgent({ serverId: 'srv-1', dataDir: path.join(work, 'data') });
    const source = path.join(work, 'suid-src');
    await fs.promises.mkdir(source, { recursive: true });
    await fs.promises.writeFile(path.join(source, 'run.sh'), '#!/bin/sh\n');
    await fs.promises.chmod(path.join(source, 'run.sh'), 0o4755);
    const file = path.join(work, 'suid.tar.gz');
    await tar.create({ gzip: true, file, cwd: source }, ['run.sh']);
    const entries: number[] = [];
    await tar.t({ file, onReadEntry: (entry) => entries.push(entry.mode ?? 0) });
    expect(entries[0]! & 0o4000).toBe(0o4000);
    const bytes = await fs.promises.readFile(file);
    const leftover = path.join(agent.root, 'tool', '.unpack-0.9.0-abc');
    await fs.promises.mkdir(leftover, { recursive: true });

    await agent.deploy(
      {
        module: 'tool',
        version: '1.0.0',
        path: file,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        size: bytes.length,
      },
      () => {},
    );
    const mode = fs.statSync(path.join(agent.root, 'tool', 'current', 'run.sh')).mode;
    expect(mode & 0o7000).toBe(0);
    expect(mode & 0o100).toBe(0o100);
    expect(fs.existsSync(leftover)).toBe(false);
  });

  it('reports health from the current release and its health.json', async () => {
    const agent = createLocalAgent({ serverId: 'srv-1', dataDir: path.join(work, 'data') });
    expect((await agent.health('portal')).ok).toBe(false);
    await agent.deploy(await makeArtifact('portal', '1.0.0', { 'health.json': '{"ok": true}' }), () => {});
    expect(await agent.health('portal')).toEqual({
      ok: true,
      detail: 'current 1.0.0 present; health.json ok',
    });
    await agent.deploy(await makeArtifact('portal', '1.0.1', { 'health.json': '{"ok": tru' }), () => {});
    const broken = await agent.health('portal');
    expect(broken.ok).toBe(false);
    expect(broken.detail).toContain('health.json does not parse');
  });
});
