import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { HalError } from '@hal-ai/spec';
import type { ArtifactRef, NodeAgent, ServerMetrics, StepLog } from '../core/agent.js';
import type { Clock } from '../core/clock.js';
import { type ArchiveLimits, unpackArtifact } from './agent-archive.js';
import { type AgentOs, type AgentStatfs, createMetricsReader } from './agent-metrics.js';
import { AGENT_NAME_PATTERN, assertAgentName, assertServerId } from './agent-names.js';

/** Settings of {@link createLocalAgent}. */
export interface LocalAgentSettings {
  /** The server this machine is in HAL's records. */
  serverId: string;
  /** HAL's (or the remote agent's) data folder; releases go to `<dataDir>/agents/<serverId>/<module>/<version>`. */
  dataDir: string;
  /** Replaces `fs.promises.statfs` (tests). */
  statfs?: AgentStatfs;
  /** Replaces `node:os` (tests). */
  os?: AgentOs;
  clock?: Clock;
  /** Pause between the two CPU samples of the first metrics reading (ms, default 200). */
  cpuSampleMs?: number;
  /** Unpacking limits. */
  limits?: Partial<ArchiveLimits>;
}

/** The built-in agent, with the folder it deploys into. */
export interface LocalAgent extends NodeAgent {
  /** `<dataDir>/agents/<serverId>`: every module folder lives here. */
  readonly root: string;
}

const LINKS = ['current', 'previous'] as const;
type LinkName = (typeof LINKS)[number];

/**
 * The agent of the machine it runs on: real metrics from `node:os` and `statfs`, and releases unpacked into
 * the data folder. A module's folder holds one folder per version plus two relative symbolic links,
 * `current` and `previous`; each link is replaced by creating a temporary link and renaming it over the old
 * one, so a reader always sees either the old or the new target, never a missing link.
 *
 * @example
 * const agent = createLocalAgent({ serverId: 'srv-1', dataDir: './data' });
 * await agent.deploy({ module: 'portal', version: '1.2.0', path, sha256, size }, console.log);
 * await agent.rollback('portal', console.log);
 */
export function createLocalAgent(settings: LocalAgentSettings): LocalAgent {
  assertServerId(settings.serverId);
  const root = path.resolve(settings.dataDir, 'agents', settings.serverId);
  const readMetrics = createMetricsReader({
    dataDir: settings.dataDir,
    ...(settings.os ? { os: settings.os } : {}),
    ...(settings.statfs ? { statfs: settings.statfs } : {}),
    ...(settings.clock ? { clock: settings.clock } : {}),
    ...(settings.cpuSampleMs === undefined ? {} : { cpuSampleMs: settings.cpuSampleMs }),
  });
  // One operation per module at a time: two deploys racing on the same links could leave `previous` wrong.
  const locks = new Map<string, Promise<unknown>>();
  function exclusive<T>(module: string, run: () => Promise<T>): Promise<T> {
    const before = locks.get(module) ?? Promise.resolve();
    const result = before.then(run, run);
    const settled = result.catch(() => undefined);
    locks.set(module, settled);
    void settled.then(() => {
      if (locks.get(module) === settled) locks.delete(module);
    });
    return result;
  }

  const moduleDir = (module: string) => path.join(root, module);

  async function readLink(module: string, name: LinkName): Promise<string | null> {
    try {
      const target = await fs.promises.readlink(path.join(moduleDir(module), name));
      const version = path.basename(target);
      // A link someone bent to point elsewhere is reported as absent rather than trusted.
      return AGENT_NAME_PATTERN.test(version) && target === version ? version : null;
    } catch (error) {
      if (
        (error as NodeJS.ErrnoException).code === 'ENOENT' ||
        (error as NodeJS.ErrnoException).code === 'EINVAL'
      ) {
        return null;
      }
      throw error;
    }
  }

  async function pointLink(module: string, name: LinkName, version: string): Promise<void> {
    const dir = moduleDir(module);
    const temporary = path.join(dir, `.${name}-${randomBytes(6).toString('hex')}`);
    await fs.promises.symlink(version, temporary);
    try {
      await fs.promises.rename(temporary, path.join(dir, name));
    } catch (error) {
      await fs.promises.rm(temporary, { force: true });
      throw error;
    }
  }

  /** A crash mid-deploy can leave a half-unpacked folder or a temporary link; they are only ever ours. */
  async function removeLeftovers(dir: string): Promise<void> {
    for (const name of await fs.promises.readdir(dir)) {
      if (/^\.(unpack-|current-|previous-)/.test(name)) {
        await fs.promises.rm(path.join(dir, name), { recursive: true, force: true });
      }
    }
  }

  async function isRelease(module: string, version: string): Promise<boolean> {
    try {
      return (await fs.promises.lstat(path.join(moduleDir(module), version))).isDirectory();
    } catch {
      return false;
    }
  }

  async function deploy(
    artifact: ArtifactRef,
    log: StepLog,
  ): Promise<{ current: string; previous: string | null }> {
    assertAgentName('module', artifact.module);
    assertAgentName('version', artifact.version);
    if (typeof artifact.sha256 !== 'string' || !/^[a-f0-9]{64}$/i.test(artifact.sha256)) {
      throw new HalError('validation_failed', 'Artifact sha256 must be 64 hex characters');
    }
    const { module, version } = artifact;
    return exclusive(module, async () => {
      const dir = moduleDir(module);
      const releaseDir = path.join(dir, version);
      await fs.promises.mkdir(dir, { recursive: true });
      await removeLeftovers(dir);
      const temporary = path.join(dir, `.unpack-${version}-${randomBytes(6).toString('hex')}`);
      await fs.promises.mkdir(temporary);
      try {
        log(`verifying and unpacking ${module}@${version} (${artifact.size} bytes)`);
        const unpacked = await unpackArtifact({
          file: artifact.path,
          sha256: artifact.sha256,
          into: temporary,
          ...(settings.limits ? { limits: settings.limits } : {}),
        });
        log(`sha256 verified; ${unpacked.entries} entries unpacked`);
        if (await isRelease(module, version)) {
          // Versions are immutable in HAL, so an existing folder already holds this very release.
          log(`${version} is already unpacked; keeping the existing folder`);
          await fs.promises.rm(temporary, { recursive: true, force: true });
        } else {
          await fs.promises.rename(temporary, releaseDir);
        }
      } catch (error) {
        await fs.promises.rm(temporary, { recursive: true, force: true });
        throw error;
      }
      const was = await readLink(module, 'current');
      if (was === version) {
        log(`current already points at ${version}`);
        return { current: version, previous: await readLink(module, 'previous') };
      }
      if (was) await pointLink(module, 'previous', was);
      await pointLink(module, 'current', version);
      log(was ? `current switched ${was} → ${version}` : `current set to ${version}`);
      return { current: version, previous: was ?? (await readLink(module, 'previous')) };
    });
  }

  async function rollback(
    module: string,
    log: StepLog,
  ): Promise<{ current: string; previous: string | null }> {
    assertAgentName('module', module);
    return exclusive(module, async () => {
      const [current, previous] = await Promise.all([
        readLink(module, 'current'),
        readLink(module, 'previous'),
      ]);
      if (!current) {
        throw new HalError('invalid_state', `Module ${module} is not deployed on this server`, {
          details: { module },
        });
      }
      if (!previous || previous === current || !(await isRelease(module, previous))) {
        throw new HalError('invalid_state', `Module ${module} has no previous release to roll back to`, {
          details: { module, current },
        });
      }
      // A swap, so rolling back twice returns to where it started (and the job's revert stays simple).
      await pointLink(module, 'previous', current);
      await pointLink(module, 'current', previous);
      log(`current switched back ${current} → ${previous}`);
      return { current: previous, previous: current };
    });
  }

  async function modules(): Promise<
    Array<{ module: string; current: string | null; previous: string | null }>
  > {
    let names: string[];
    try {
      names = (await fs.promises.readdir(root, { withFileTypes: true }))
        .filter((entry) => entry.isDirectory() && AGENT_NAME_PATTERN.test(entry.name))
        .map((entry) => entry.name)
        .sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    return Promise.all(
      names.map(async (module) => ({
        module,
        current: await readLink(module, 'current'),
        previous: await readLink(module, 'previous'),
      })),
    );
  }

  async function readJson(
    file: string,
  ): Promise<{ found: false } | { found: true; value?: unknown; error?: string }> {
    let text: string;
    try {
      text = await fs.promises.readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { found: false };
      return { found: true, error: (error as Error).message };
    }
    try {
      return { found: true, value: JSON.parse(text) };
    } catch (error) {
      return { found: true, error: (error as Error).message };
    }
  }

  async function health(module: string): Promise<{ ok: boolean; detail: string }> {
    assertAgentName('module', module);
    const current = await readLink(module, 'current');
    if (!current) return { ok: false, detail: `${module} is not deployed` };
    const releaseDir = path.join(moduleDir(module), current);
    if (!(await isRelease(module, current))) {
      return { ok: false, detail: `current points at ${current}, whose folder is missing` };
    }
    const notes: string[] = [`current ${current} present`];
    for (const name of ['manifest.json', 'health.json']) {
      const read = await readJson(path.join(releaseDir, name));
      if (!read.found) continue;
      if (read.error !== undefined) return { ok: false, detail: `${name} does not parse: ${read.error}` };
      const value = read.value as Record<string, unknown> | null;
      if (
        name === 'manifest.json' &&
        value &&
        typeof value.version === 'string' &&
        value.version !== current
      ) {
        return { ok: false, detail: `manifest.json names version ${value.version}, current is ${current}` };
      }
      if (name === 'health.json' && value && value.ok === false) {
        const reason = typeof value.detail === 'string' ? `: ${value.detail}` : '';
        return { ok: false, detail: `health.json reports not ok${reason}` };
      }
      notes.push(`${name} ok`);
    }
    return { ok: true, detail: notes.join('; ') };
  }

  return {
    serverId: settings.serverId,
    root,
    metrics: (): Promise<ServerMetrics> => readMetrics(),
    deploy,
    rollback,
    modules,
    health,
  };
}
