import fs from 'node:fs/promises';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Selectable } from 'kysely';
import type { DrSnapshotsTable } from '../db/tables/core.js';
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

/** Opens a snapshot read-only and runs `PRAGMA integrity_check`. */
export function verifySnapshot(file: string): { ok: boolean; detail: string } {
  let copy: BetterSqlite3.Database | null = null;
  try {
    copy = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    const rows = copy.pragma('integrity_check') as Array<{ integrity_check: string }>;
    const messages = rows.map((r) => r.integrity_check);
    return messages.length === 1 && messages[0] === 'ok'
      ? { ok: true, detail: 'integrity_check: ok' }
      : { ok: false, detail: `integrity_check: ${messages.slice(0, 5).join('; ')}` };
  } catch (error) {
    return { ok: false, detail: error instanceof Error ? error.message : String(error) };
  } finally {
    copy?.close();
  }
}

/** Disaster recovery: real online SQLite backups, verified after writing. */
export function createDrFunctions(
  ctx: CoreContext,
  sqlite: BetterSqlite3.Database,
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

  return {
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
     * Takes an online backup of HAL's database to `<dataDir>/dr/hal-<timestamp>.db`, records its digest and
     * size, then opens the copy read-only and runs `PRAGMA integrity_check`.
     */
    async snapshot(actor: Actor): Promise<{ snapshot: DrSnapshot }> {
      const dir = path.join(ctx.dataDir, 'dr');
      await fs.mkdir(dir, { recursive: true });
      const stamp = ctx.nowIso().replace(/[:.]/g, '-');
      const id = ctx.newId('dr');
      const file = path.join(dir, `hal-${stamp}-${id.slice(-8)}.db`);
      await sqlite.backup(file);
      // The copy inherits WAL mode; a self-contained single file is what a restore needs (and what we hash).
      const copy = new BetterSqlite3(file);
      try {
        copy.pragma('journal_mode = DELETE');
      } finally {
        copy.close();
      }
      const { sha256, size } = await hashFile(file);
      const check = verifySnapshot(file);
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
