import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { preparePrivateDatabaseFile } from '../data-dir.js';
import type { PostgresOpenDatabase } from './database-postgres.js';
import type { Database } from './schema.js';
import { cachedStatements } from './statement-cache.js';

/** An open SQLite HAL database: the kysely handle, the raw better-sqlite3 handle (for `.backup()`), and close. */
export interface SqliteOpenDatabase {
  dialect: 'sqlite';
  db: Kysely<Database>;
  sqlite: BetterSqlite3.Database;
  close(): Promise<void>;
}

/**
 * An open HAL database of either dialect (SPEC §15): SQLite under the data folder (the embedded default) or
 * PostgreSQL from `HAL_DATABASE_URL` (several instances). Code that needs more than `db` narrows on `dialect`.
 */
export type OpenDatabase = SqliteOpenDatabase | PostgresOpenDatabase;

/** Settings of {@link openDatabase}. */
export interface SqliteDatabaseSettings {
  /**
   * Reuse prepared statements per SQL text (default true; the host's `HAL_DATABASE_STATEMENT_CACHE`,
   * `apps/hal/bench/README.md` has what it buys). False lets kysely prepare every query again.
   */
  statementCache?: boolean;
}

/**
 * Opens (creating if needed) a SQLite database for HAL: WAL so `hal mcp` can read while `hal serve`
 * writes, `synchronous = NORMAL` (no fsync per commit), a 5 s busy timeout for the moments both
 * write, enforced foreign keys, and prepared statements reused per SQL text (see `cachedStatements`).
 * A file database and its companions are made private (`0600`) first.
 * Pass `':memory:'` in tests where the file is not the point.
 *
 * @example
 * const { db, close } = openDatabase('/var/lib/hal/hal.db');
 */
export function openDatabase(file: string, settings: SqliteDatabaseSettings = {}): SqliteOpenDatabase {
  // The file and its WAL/SHM are 0600 (SQLite gives the companions the main file's mode).
  if (file !== ':memory:' && !file.startsWith('file:')) preparePrivateDatabaseFile(file);
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  // NORMAL, not the default FULL: in WAL mode NORMAL syncs only at checkpoints, so a commit no
  // longer blocks the event loop on an fsync (ms per commit, several commits per model turn).
  // Still safe: the database cannot be corrupted by a crash or power loss; at worst the last
  // commits before a power loss (not a process crash) are rolled back — SQLite's recommended WAL setting.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // Prepared statements are reused per SQL text: kysely would otherwise prepare every query again.
  const database = (settings.statementCache ?? true) ? cachedStatements(sqlite) : sqlite;
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  let closed = false;
  return {
    dialect: 'sqlite',
    db,
    sqlite,
    async close() {
      if (closed) return;
      closed = true;
      // kysely's destroy closes the better-sqlite3 handle too.
      await db.destroy();
    },
  };
}

/** The raw better-sqlite3 handle of a SQLite database; throws for PostgreSQL (for SQLite-only tools and tests). */
export function requireSqlite(database: OpenDatabase): BetterSqlite3.Database {
  if (database.dialect !== 'sqlite')
    throw new Error('this needs the SQLite database, HAL runs on PostgreSQL');
  return database.sqlite;
}
