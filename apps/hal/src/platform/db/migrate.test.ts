import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenDatabase, openDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';

let database: OpenDatabase;
afterEach(async () => {
  await database.close();
});

describe('migrateToLatest', () => {
  it('applies every migration once and is idempotent', async () => {
    database = openDatabase(':memory:');
    const first = await migrateToLatest(database.db);
    expect(first.applied[0]).toBe('0001-foundation');
    expect((await migrateToLatest(database.db)).applied).toEqual([]);
    const tables = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`.execute(
      database.db,
    );
    expect(tables.rows.map((row) => row.name)).toEqual(
      expect.arrayContaining([
        'operators',
        'sessions',
        'audit',
        'login_counters',
        'confirm_tokens',
        'operator_prefs',
      ]),
    );
  });

  it('applies a migration numbered below the newest applied one (a database from before it landed)', async () => {
    database = openDatabase(':memory:');
    await migrateToLatest(database.db);
    // As a database migrated before 0013 was written: 0014 applied, 0013 never.
    await sql`DROP TABLE hal_revisions`.execute(database.db);
    await sql`DELETE FROM kysely_migration WHERE name = '0013-revisions'`.execute(database.db);
    expect((await migrateToLatest(database.db)).applied).toEqual(['0013-revisions']);
    await sql`SELECT revision FROM hal_revisions`.execute(database.db);
  });

  it('throws an error naming the failed migration', async () => {
    database = openDatabase(':memory:');
    await sql`CREATE TABLE operators (id TEXT)`.execute(database.db);
    await expect(migrateToLatest(database.db)).rejects.toThrow(/migration "0001-foundation" failed/);
  });

  it('opens files with WAL, a busy timeout and foreign keys', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-db-'));
    database = openDatabase(path.join(dir, 'hal.db'));
    expect(database.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(database.sqlite.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(database.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
  });
});
