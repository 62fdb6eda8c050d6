import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ServerMetrics } from '../core/agent.js';
import type { Clock } from '../core/clock.js';

/** The part of `node:os` the metrics read; injectable so tests can pin the numbers. */
export interface AgentOs {
  cpus(): Array<{ times: { user: number; nice: number; sys: number; idle: number; irq: number } }>;
  totalmem(): number;
  freemem(): number;
  loadavg(): number[];
  uptime(): number;
}

/** The part of `fs.promises.statfs` the metrics read. */
export type AgentStatfs = (path: string) => Promise<{ bsize: number; blocks: number; bavail: number }>;

/** Settings of {@link createMetricsReader}. */
export interface MetricsReaderSettings {
  /** The folder whose file system is reported as `disk`. */
  dataDir: string;
  os?: AgentOs;
  statfs?: AgentStatfs;
  clock?: Clock;
  /** How long to wait between the two CPU samples of the first reading (ms). */
  cpuSampleMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

interface CpuSample {
  busy: number;
  total: number;
}

function sampleCpu(system: AgentOs): CpuSample | null {
  const cpus = system.cpus();
  if (cpus.length === 0) return null;
  let busy = 0;
  let total = 0;
  for (const { times } of cpus) {
    const all = times.user + times.nice + times.sys + times.idle + times.irq;
    total += all;
    busy += all - times.idle;
  }
  return { busy, total };
}

/** statfs needs an existing path; before the first deploy the data folder may not exist yet. */
async function nearestExisting(target: string): Promise<string> {
  let current = path.resolve(target);
  for (;;) {
    try {
      await fs.promises.access(current);
      return current;
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return current;
      current = parent;
    }
  }
}

/**
 * Reads real machine metrics. CPU % compares the counters against the previous reading (the first reading
 * takes two samples `cpuSampleMs` apart, and so does a reading that comes before the counters moved), because a
 * single `os.cpus()` snapshot only holds totals since boot.
 */
export function createMetricsReader(settings: MetricsReaderSettings): () => Promise<ServerMetrics> {
  const system = settings.os ?? os;
  const statfs: AgentStatfs = settings.statfs ?? ((p) => fs.promises.statfs(p));
  const clock = settings.clock ?? { now: () => Date.now() };
  const sleep = settings.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const cpuSampleMs = settings.cpuSampleMs ?? 200;
  let last: CpuSample | null = null;

  return async () => {
    let before = last;
    if (!before) {
      before = sampleCpu(system);
      await sleep(cpuSampleMs);
    }
    let after = sampleCpu(system);
    // Two readings within one tick of the kernel's counters (a page rendered twice in a row) see no time pass:
    // sample again after the interval instead of answering "unknown".
    if (before && after && after.total <= before.total) {
      await sleep(cpuSampleMs);
      after = sampleCpu(system);
    }
    last = after;
    let cpuPercent: number | null = null;
    if (before && after && after.total > before.total) {
      const share = (after.busy - before.busy) / (after.total - before.total);
      cpuPercent = Math.round(Math.min(1, Math.max(0, share)) * 1000) / 10;
    }
    const diskPath = await nearestExisting(settings.dataDir);
    const disk = await statfs(diskPath);
    const totalBytes = system.totalmem();
    const load = system.loadavg();
    return {
      at: new Date(clock.now()).toISOString(),
      cpuPercent,
      memory: { totalBytes, usedBytes: Math.max(0, totalBytes - system.freemem()) },
      disk: { path: diskPath, totalBytes: disk.blocks * disk.bsize, freeBytes: disk.bavail * disk.bsize },
      load: [load[0] ?? 0, load[1] ?? 0, load[2] ?? 0],
      uptimeS: Math.floor(system.uptime()),
    };
  };
}
