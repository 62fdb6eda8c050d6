import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { HalError } from '@hal-ai/spec';
import * as tar from 'tar';
import { type OpenDatabase, openDatabase } from '../../platform/db/database.js';
import { createDatabaseBackup, type DatabaseBackup } from '../../platform/db/database-backup.js';
import { openPostgresDatabase } from '../../platform/db/database-postgres.js';
import { createMigratedPostgresTestDatabase } from '../../platform/db/database-postgres.test-support.js';
import { migrateToLatest } from '../../platform/db/migrate.js';
import { createLocalAgent } from '../agents/agent-local.js';
import { createAuditLog } from '../audit/audit-log.js';
import type { AuditLog } from '../audit/types.js';
import type { NodeAgent } from './agent.js';
import type { Clock } from './clock.js';
import type { SettingSecretStore } from './core-settings.js';
import { createHalCore, type HalCore, LOCAL_SERVER_ID } from './hal-core.js';

/** A clock tests move by hand. */
export interface TestClock extends Clock {
  advance(ms: number): void;
}

/** A clock starting at 2026-11-30T12:00:00Z. */
export function createTestClock(start = Date.parse('2026-11-30T12:00:00Z')): TestClock {
  let now = start;
  return {
    now: () => now,
    advance(ms) {
      now += ms;
    },
  };
}

/** A migrated temp-file database, a real audit log, a real local agent and a core on top. */
export interface TestCore {
  core: HalCore;
  db: OpenDatabase['db'];
  /** How DR snapshots copy the database. */
  backup: DatabaseBackup;
  audit: AuditLog;
  clock: TestClock;
  dataDir: string;
  dbFile: string;
  /** Agents by server id; the local one is pre-registered, tests add more. */
  agents: Map<string, NodeAgent>;
  close(): Promise<void>;
}

/** Options of {@link createTestCore}. */
export interface TestCoreOptions {
  /** Reuse a data folder (restart tests). */
  dataDir?: string;
  clock?: TestClock;
  /** Start the core (default true). */
  start?: boolean;
  /** Wrap the local agent (e.g. to block a step). */
  wrapLocal?: (agent: NodeAgent) => NodeAgent;
  /** The metrics sampling interval (default 0: no sampling). */
  metricsIntervalMs?: number;
}

/** What {@link createLocalTestCore} builds a core over (an app's deps carry the same fields). */
export interface LocalTestCoreSettings
  extends Pick<TestCore, 'db' | 'backup' | 'audit' | 'dataDir'>,
    Pick<TestCoreOptions, 'wrapLocal' | 'metricsIntervalMs'> {
  clock: Clock;
  hostname: string;
  /** Where confidential settings go (an app vault in route tests). */
  secrets?: SettingSecretStore;
}

/**
 * A core (not started) whose only agent at first is a real local agent deploying into `dataDir`; fast polling,
 * no metrics timer. Tests add remote agents to `agents`.
 */
export function createLocalTestCore(settings: LocalTestCoreSettings): {
  core: HalCore;
  agents: Map<string, NodeAgent>;
} {
  const local = createLocalAgent({ serverId: LOCAL_SERVER_ID, dataDir: settings.dataDir, cpuSampleMs: 10 });
  const agents = new Map<string, NodeAgent>([
    [LOCAL_SERVER_ID, settings.wrapLocal ? settings.wrapLocal(local) : local],
  ]);
  const core = createHalCore({
    db: settings.db,
    backup: settings.backup,
    clock: settings.clock,
    audit: settings.audit,
    dataDir: settings.dataDir,
    agents: { get: (id) => agents.get(id) },
    hostname: settings.hostname,
    pollMs: 50,
    metricsIntervalMs: settings.metricsIntervalMs ?? 0,
    ...(settings.secrets ? { secrets: settings.secrets } : {}),
  });
  return { core, agents };
}

/** Awaits `promise`, which must reject with a `HalError`, and returns that error. */
export async function rejection(promise: Promise<unknown>): Promise<HalError> {
  try {
    await promise;
  } catch (error) {
    if (HalError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a HalError');
}

const postgresByDataDir = new Map<string, string>();

/**
 * The core tests' database: a SQLite file in the data folder, or — with `HAL_TEST_DIALECT=postgres` (and
 * `HAL_TEST_DATABASE_URL`) — a migrated PostgreSQL database of its own, so the same store tests run on both dialects.
 */
async function openTestCoreDatabase(dataDir: string, dbFile: string): Promise<OpenDatabase> {
  if (process.env.HAL_TEST_DIALECT === 'postgres') {
    // A data folder keeps its database across a restart, as `hal.db` does (the throwaway server keeps it after).
    let url = postgresByDataDir.get(dataDir);
    if (url === undefined) {
      url = (await createMigratedPostgresTestDatabase()).url;
      postgresByDataDir.set(dataDir, url);
    }
    return openPostgresDatabase(url);
  }
  const database = openDatabase(dbFile);
  await migrateToLatest(database.db);
  return database;
}

/** Builds a {@link TestCore} in a temp folder (or `options.dataDir`). */
export async function createTestCore(options: TestCoreOptions = {}): Promise<TestCore> {
  const dataDir = options.dataDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'hal-core-')));
  const dbFile = path.join(dataDir, 'hal.db');
  const database = await openTestCoreDatabase(dataDir, dbFile);
  const { db, close } = database;
  const backup = createDatabaseBackup(database);
  const clock = options.clock ?? createTestClock();
  const audit = createAuditLog({ db, clock });
  const { core, agents } = createLocalTestCore({
    db,
    backup,
    clock,
    audit,
    dataDir,
    hostname: 'hal-test-host',
    ...(options.wrapLocal ? { wrapLocal: options.wrapLocal } : {}),
    ...(options.metricsIntervalMs === undefined ? {} : { metricsIntervalMs: options.metricsIntervalMs }),
  });
  if (options.start !== false) await core.start();
  return {
    core,
    db,
    backup,
    audit,
    clock,
    dataDir,
    dbFile,
    agents,
    async close() {
      await core.stop(2000);
      await close();
    },
  };
}

/** Writes a real `.tar.gz` release into `dir` and returns its path and digest. */
export async function makeArtifact(
  dir: string,
  module: string,
  version: string,
  files: Record<string, string> = { 'index.js': `console.log('${module} ${version}')\n` },
): Promise<{ file: string; sha256: string }> {
  const source = await fs.mkdtemp(path.join(dir, `src-${module}-${version}-`));
  for (const [name, text] of Object.entries(files)) await fs.writeFile(path.join(source, name), text);
  const file = path.join(
    dir,
    `${module}-${version}-${Date.now()}-${Math.random().toString(36).slice(2)}.tar.gz`,
  );
  await tar.create({ gzip: true, file, cwd: source, portable: true }, Object.keys(files));
  const sha256 = createHash('sha256')
    .update(await fs.readFile(file))
    .digest('hex');
  return { file, sha256 };
}

/** Audit actions recorded so far, oldest first. */
export async function auditActions(audit: AuditLog): Promise<string[]> {
  const { entries } = await audit.list({ limit: 200 });
  return entries.map((e) => e.action).reverse();
}

/** Polls `check` until it returns a value (generous timeout for a shared 2-core machine). */
export async function waitFor<T>(
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('waitFor: timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
