import fs from 'node:fs';
import path from 'node:path';
import { HalError } from '@hal-ai/spec';
import BetterSqlite3 from 'better-sqlite3';
import { preparePrivateDataDir } from '../../platform/data-dir.js';
import { openDatabase } from '../../platform/db/database.js';
import { migrateToLatest } from '../../platform/db/migrate.js';
import { createAuditLog } from '../audit/audit-log.js';
import type { Clock } from './clock.js';
import { verifySnapshot } from './core-dr.js';
import { hashFile } from './core-releases.js';
import { createIdGenerator } from './core-support.js';

/** Settings of {@link restoreSnapshot}. */
export interface RestoreSnapshotSettings {
  dataDir: string;
  /** A snapshot's file name in `<dataDir>/dr/` (as the DR page lists it), or the path of a snapshot file. */
  snapshot: string;
  clock: Clock;
  random?: (bytes: number) => Buffer;
}

/** What {@link restoreSnapshot} did. */
export interface RestoreSnapshotResult {
  /** The snapshot file restored from. */
  source: string;
  /** The database file now holding the snapshot's state. */
  database: string;
  /** Where the database as it was before the restore was kept (null on an empty data folder). */
  previous: string | null;
  /** Migrations applied on top of the snapshot (it may predate this release). */
  applied: string[];
  /** Snapshot files in `<dataDir>/dr/` the restored database did not know, registered so none is lost. */
  registered: string[];
}

const SNAPSHOT_NAME = /^hal-.*\.db$/;

function resolveSource(dataDir: string, snapshot: string): string {
  if (snapshot.trim() === '') throw new HalError('validation_failed', 'Name the snapshot to restore');
  const candidate =
    snapshot.includes('/') || snapshot.includes(path.sep)
      ? path.resolve(snapshot)
      : path.join(dataDir, 'dr', snapshot);
  if (!fs.existsSync(candidate) || !fs.statSync(candidate).isFile()) {
    throw new HalError('not_found', `No snapshot file ${candidate}`);
  }
  return candidate;
}

/**
 * Whether another connection (a running `hal serve`, or a `hal mcp`) has the database open: an exclusive lock
 * cannot be taken while any other process holds it in WAL mode. Returns the probe's handle, still locked, so
 * nothing opens the database between the check and the swap; the caller closes it.
 */
function lockExclusively(file: string): BetterSqlite3.Database {
  const probe = new BetterSqlite3(file, { fileMustExist: true, timeout: 0 });
  try {
    probe.pragma('locking_mode = EXCLUSIVE');
    probe.exec('BEGIN EXCLUSIVE');
    probe.exec('COMMIT');
    return probe;
  } catch (error) {
    probe.close();
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) {
      throw new HalError(
        'conflict',
        `The database ${file} is in use by a running HAL (hal serve or hal mcp): stop it first (systemctl stop hal), then restore`,
      );
    }
    throw error;
  }
}

/** The digest the current database recorded for a snapshot of this name, if it knows it. */
function recordedDigest(database: BetterSqlite3.Database, name: string): string | null {
  try {
    const rows = database.prepare('select path, sha256 from dr_snapshots').all() as Array<{
      path: string;
      sha256: string;
    }>;
    return rows.find((row) => path.basename(row.path) === name)?.sha256 ?? null;
  } catch {
    // A database without the table (an older or foreign one) recorded nothing.
    return null;
  }
}

function removeCompanions(file: string): void {
  for (const suffix of ['-wal', '-shm', '-journal']) fs.rmSync(`${file}${suffix}`, { force: true });
}

/**
 * Restores a DR snapshot into a stopped HAL's data folder (`hal db restore`):
 * 1. checks the snapshot (`PRAGMA integrity_check`, and its SHA-256 against the digest the current database
 *    recorded when it took it);
 * 2. refuses while any process has the database open;
 * 3. keeps the current database as `hal.db.before-restore-<time>` (checkpointed into one file);
 * 4. copies the snapshot in as `hal.db` (0600), migrates it to this release's schema;
 * 5. registers the snapshot files of `<dataDir>/dr/` the restored database does not know (the snapshot never
 *    holds its own row, nor those of later snapshots), so the next start's clean-up keeps them;
 * 6. appends a `dr.restore` audit entry to the restored database.
 * A failure before the new database is in place puts the previous one back.
 *
 * @throws HalError `not_found` (no such file), `validation_failed` (not a sound snapshot), `checksum_mismatch`,
 *   `conflict` (HAL is running).
 */
export async function restoreSnapshot(settings: RestoreSnapshotSettings): Promise<RestoreSnapshotResult> {
  const { dataDir, clock } = settings;
  preparePrivateDataDir(dataDir);
  const source = resolveSource(dataDir, settings.snapshot);
  const check = verifySnapshot(source);
  if (!check.ok) {
    throw new HalError('validation_failed', `${source} is not a sound snapshot (${check.detail})`);
  }
  const { sha256 } = await hashFile(source);
  const database = path.join(dataDir, 'hal.db');
  const stamp = new Date(clock.now()).toISOString().replace(/[:.]/g, '-');
  let previous: string | null = null;

  if (fs.existsSync(database)) {
    const current = lockExclusively(database);
    try {
      const expected = recordedDigest(current, path.basename(source));
      if (expected !== null && expected !== sha256) {
        throw new HalError(
          'checksum_mismatch',
          `${path.basename(source)} does not match the digest recorded when it was taken: it changed since`,
        );
      }
      // Everything the WAL holds goes into the main file, so the kept copy is one self-contained file.
      current.pragma('wal_checkpoint(TRUNCATE)');
      previous = `${database}.before-restore-${stamp}`;
      fs.renameSync(database, previous);
    } finally {
      current.close();
    }
    removeCompanions(database);
  }

  const incoming = `${database}.restoring`;
  try {
    fs.copyFileSync(source, incoming);
    fs.chmodSync(incoming, 0o600);
    removeCompanions(incoming);
    fs.renameSync(incoming, database);
  } catch (error) {
    fs.rmSync(incoming, { force: true });
    if (previous !== null) fs.renameSync(previous, database);
    throw error;
  }

  const opened = openDatabase(database);
  try {
    const { applied } = await migrateToLatest(opened.db);
    const registered = await registerUnknownSnapshots(opened.db, dataDir, settings);
    await createAuditLog({ db: opened.db, clock }).append({
      actor: 'system',
      action: 'dr.restore',
      target: 'dr',
      details: {
        snapshot: path.basename(source),
        sha256,
        previous: previous === null ? null : path.basename(previous),
        applied,
        registered,
        via: 'cli',
      },
    });
    return { source, database, previous, applied, registered };
  } finally {
    await opened.close();
  }
}

async function registerUnknownSnapshots(
  db: ReturnType<typeof openDatabase>['db'],
  dataDir: string,
  settings: RestoreSnapshotSettings,
): Promise<string[]> {
  const dir = path.join(dataDir, 'dr');
  if (!fs.existsSync(dir)) return [];
  const known = new Set(
    (await db.selectFrom('dr_snapshots').select('path').execute()).map((row) => path.basename(row.path)),
  );
  const newId = createIdGenerator(settings.clock, settings.random);
  const registered: string[] = [];
  for (const name of fs.readdirSync(dir).sort()) {
    if (!SNAPSHOT_NAME.test(name) || known.has(name)) continue;
    const file = path.join(dir, name);
    const { sha256, size } = await hashFile(file);
    const check = verifySnapshot(file);
    const now = new Date(settings.clock.now()).toISOString();
    await db
      .insertInto('dr_snapshots')
      .values({
        id: newId('dr'),
        path: file,
        sha256,
        size,
        created_at: fs.statSync(file).mtime.toISOString(),
        created_by: 'system',
        verified: check.ok ? 'ok' : 'failed',
        verified_at: now,
        detail: check.detail,
      })
      .execute();
    registered.push(name);
  }
  return registered;
}
