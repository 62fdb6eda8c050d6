import fs from 'node:fs/promises';
import path from 'node:path';
import type { Selectable } from 'kysely';
import { type DatabaseBackup, verifySqliteSnapshot } from '../../platform/db/database-backup.js';
import type { DrSnapshotsTable } from '../../platform/db/tables/core.js';
import { hashFile } from './core-releases.js';
import type { Actor, CoreContext } from './core-support.js';

/** A DR snapshot as clients see it. */
export interface DrSnapshot {
  id: string;
  /** File name inside `<dataDir>/dr/` (the full path stays inside HAL). */
  file: string;
  sha256: string;
  size: number;
  createdAt: string;
  createdBy: string;
  verified: DrSnapshotsTable['verified'];
  verifiedAt: string | null;
  detail: string | null;
}

/** What `dr.status()` answers. */
export interface DrStatus {
  count: number;
  last: DrSnapshot | null;
  /** Seconds since the last snapshot, or null when there is none. */
  lastAgeS: number | null;
  /** Verification state of the last snapshot (`unknown` when there is none). */
  verified: DrSnapshotsTable['verified'];
  recent: DrSnapshot[];
}

function toSnapshot(row: Selectable<DrSnapshotsTable>): DrSnapshot {
  return {
    id: row.id,
    file: path.basename(row.path),
    sha256: row.sha256,
    size: row.size,
    createdAt: row.created_at,
    createdBy: row.created_by,
    verified: row.verified,
    verifiedAt: row.verified_at,
    detail: row.detail,
  };
}

/** The name prefix of a snapshot still being written (never a finished snapshot's name). */
const PARTIAL_PREFIX = '.partial-';

/** Opens a SQLite snapshot read-only and runs `PRAGMA integrity_check`. */
export const verifySnapshot = verifySqliteSnapshot;

/** Disaster recovery: real online backups of the database (SQLite or PostgreSQL), verified after writing. */
export function createDrFunctions(
  ctx: CoreContext,
  backup: DatabaseBackup,
  /** How many snapshots to keep (the `dr.retention_count` setting). */
  retention: () => Promise<number> = async () => 14,
) {
  const { db, audit } = ctx;
  /** Drops the oldest snapshots beyond the retention count (rows and files), with one audit entry. */
  async function prune(actor: Actor): Promise<void> {
    const keep = Math.max(1, await retention());
    const old = await db
      .selectFrom('dr_snapshots')
      .selectAll()
      .orderBy('id', 'desc')
      .limit(1000)
      .offset(keep)
      .execute();
    if (old.length === 0) return;
    await db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('dr_snapshots')
        .where(
          'id',
          'in',
          old.map((r) => r.id),
        )
        .execute();
      await audit.append(
        {
          actor,
          action: 'dr.prune',
          target: 'dr',
          details: { keep, removed: old.map((r) => path.basename(r.path)) },
        },
        trx,
      );
    });
    for (const row of old) {
      for (const suffix of ['', '-wal', '-shm']) await fs.rm(`${row.path}${suffix}`, { force: true });
    }
  }

  const dir = path.join(ctx.dataDir, 'dr');

  return {
    /**
     * Removes what a snapshot cut short (a crash, `kill -9`) left in `<dataDir>/dr`: temporary `.partial-*` files
     * with their `-journal`/`-wal`/`-shm` siblings, and finished files no snapshot row names (a crash between the
     * rename and the row). Start-up runs it before anything else can snapshot. Returns the names removed.
     */
    async removeLeftovers(): Promise<string[]> {
      let names: string[];
      try {
        names = await fs.readdir(dir);
      } catch {
        return [];
      }
      const known = new Set(
        (await db.selectFrom('dr_snapshots').select('path').execute()).map((row) => path.basename(row.path)),
      );
      const removed: string[] = [];
      for (const name of names) {
        const base = name.replace(/-(journal|wal|shm)$/, '');
        const leftover =
          name.startsWith(PARTIAL_PREFIX) || (/^hal-.*\.(db|dump)$/.test(base) && !known.has(base));
        if (!leftover) continue;
        await fs.rm(path.join(dir, name), { force: true });
        removed.push(name);
      }
      if (removed.length > 0) ctx.logger.warn({ removed }, 'removed unfinished DR snapshot files');
      return removed;
    },

    /** Age, verification and count of the snapshots, with the most recent ones. */
    async status(): Promise<DrStatus> {
      const rows = await db.selectFrom('dr_snapshots').selectAll().orderBy('id', 'desc').limit(10).execute();
      const count = await db
        .selectFrom('dr_snapshots')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst();
      const recent = rows.map(toSnapshot);
      const last = recent[0] ?? null;
      return {
        count: Number(count?.n ?? 0),
        last,
        lastAgeS: last
          ? Math.max(0, Math.round((ctx.clock.now() - Date.parse(last.createdAt)) / 1000))
          : null,
        verified: last?.verified ?? 'unknown',
        recent,
      };
    },

    /**
     * Takes an online backup of HAL's database to `<dataDir>/dr/hal-<timestamp>.db` (SQLite) or `.dump`
     * (PostgreSQL, `pg_dump -Fc`), records its digest and size, then checks the copy (`PRAGMA integrity_check`,
     * `pg_restore --list`). The copy is written under a
     * temporary `.partial-` name and renamed only once it is complete and checked, so a crash never leaves a
     * half-written file under a snapshot's name (and {@link removeLeftovers} clears what it does leave).
     */
    async snapshot(actor: Actor): Promise<{ snapshot: DrSnapshot }> {
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      const stamp = ctx.nowIso().replace(/[:.]/g, '-');
      const id = ctx.newId('dr');
      const name = `hal-${stamp}-${id.slice(-8)}${backup.extension}`;
      const file = path.join(dir, name);
      const partial = path.join(dir, `${PARTIAL_PREFIX}${name}`);
      let sha256: string;
      let size: number;
      let check: { ok: boolean; detail: string };
      try {
        await backup.write(partial);
        await fs.chmod(partial, 0o600);
        // A crash from here to the rename leaves only the temporary file, which the next start removes.
        await ctx.pausePoints?.reach('dr-snapshot-written');
        ({ sha256, size } = await hashFile(partial));
        check = await backup.verify(partial);
        await fs.rename(partial, file);
      } catch (error) {
        for (const suffix of ['', '-journal', '-wal', '-shm'])
          await fs.rm(`${partial}${suffix}`, { force: true });
        throw error;
      }
      const snapshot = await db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto('dr_snapshots')
          .values({
            id,
            path: file,
            sha256,
            size,
            created_at: ctx.nowIso(),
            created_by: actor,
            verified: check.ok ? 'ok' : 'failed',
            verified_at: ctx.nowIso(),
            detail: check.detail,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        const snapshot = toSnapshot(row);
        await audit.append(
          { actor, action: 'dr.snapshot', target: `dr:${id}`, details: { after: snapshot } },
          trx,
        );
        return snapshot;
      });
      await prune(actor);
      return { snapshot };
    },
  };
}

/** The DR functions' type. */
export type DrFunctions = ReturnType<typeof createDrFunctions>;
