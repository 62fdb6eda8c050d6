import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';

/** An open PostgreSQL HAL database (SPEC §15): the kysely handle, its `pg` pool, the URL it came from, and close. */
export interface PostgresOpenDatabase {
  dialect: 'postgres';
  db: Kysely<Database>;
  /** The pool behind `db`; `LISTEN` takes a client of its own from it. */
  pool: pg.Pool;
  /** The connection URL (it may carry the password: never log or return it). */
  url: string;
  close(): Promise<void>;
}

/** Settings of {@link openPostgresDatabase}. */
export interface PostgresDatabaseSettings {
  /** Most connections this process holds (default 10, `pg`'s own default). */
  maxConnections?: number;
}

// PostgreSQL OIDs of the types HAL reads as JavaScript numbers.
const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * `pg` returns `bigint` (and `count(*)`) and `numeric` as strings, because they may exceed a double. HAL's integers
 * are epoch milliseconds, sizes, counters and ids — all far below 2^53 — and every store expects numbers, as SQLite
 * gives them. These parsers are the pool's own (not `pg.types`, which is process-wide); a value beyond the safe
 * range fails loudly instead of rounding.
 */
const halTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) {
      return (value: string) => {
        const number = Number(value);
        if (!Number.isSafeInteger(number)) throw new RangeError(`bigint ${value} is beyond 2^53`);
        return number;
      };
    }
    if (oid === NUMERIC_OID) return (value: string) => Number(value);
    // biome-ignore lint/suspicious/noExplicitAny: pg's overloads type the format parameter per call site.
    return pg.types.getTypeParser(oid, (format ?? 'text') as any);
  },
};

/**
 * Opens HAL's database on PostgreSQL (`HAL_DATABASE_URL=postgres://…`): kysely's `PostgresDialect` over a `pg.Pool`.
 * Nothing is connected until the first query; the caller migrates (`migrateToLatest`) as for SQLite.
 *
 * @example
 * const { db, close } = openPostgresDatabase('postgres://hal:…@127.0.0.1:5432/hal');
 */
export function openPostgresDatabase(
  url: string,
  settings: PostgresDatabaseSettings = {},
): PostgresOpenDatabase {
  const pool = new pg.Pool({
    connectionString: url,
    max: settings.maxConnections ?? 10,
    types: halTypes,
    // Every HAL timestamp is written as ISO text by the app; the server's zone never matters, but make it fixed.
    options: '-c TimeZone=UTC',
  });
  // An idle client that loses its server (a restart) emits here; without a listener that would crash the process.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  let closed = false;
  return {
    dialect: 'postgres',
    db,
    pool,
    url,
    async close() {
      if (closed) return;
      closed = true;
      // kysely's destroy ends the pool too.
      await db.destroy();
    },
  };
}

/** Whether `url` names a PostgreSQL database (`postgres://` or `postgresql://`). */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}
