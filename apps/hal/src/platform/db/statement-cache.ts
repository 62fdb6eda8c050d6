import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';
import { LRUCache } from 'lru-cache';

/** Default number of distinct SQL texts whose prepared statements are kept. */
export const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely's SQLite driver prepares every query again (`db.prepare(sql)` per call): SQLite parses and plans the SQL
 * each time, which costs more than running a typical HAL query. This hands kysely a database whose `prepare`
 * returns the statement already prepared for the same SQL text. Kysely passes values as parameters, so the text
 * repeats for every query of the same shape. A cached statement that is still iterating (a streamed select) is
 * `busy` and cannot run again: that caller gets a fresh one. SQLite re-prepares a statement itself when the schema
 * changes, so migrations need no invalidation. The least recently used text is dropped beyond `size`.
 *
 * @example
 * new Kysely<Database>({ dialect: new SqliteDialect({ database: cachedStatements(sqlite) }) });
 */
export function cachedStatements(
  sqlite: BetterSqlite3.Database,
  size: number = STATEMENT_CACHE_SIZE,
): SqliteDatabase & { readonly cachedCount: number } {
  const statements = new LRUCache<string, BetterSqlite3.Statement>({ max: size });
  return {
    close: () => {
      statements.clear();
      sqlite.close();
    },
    prepare(sql: string) {
      const cached = statements.get(sql);
      if (cached !== undefined && !cached.busy) return cached;
      const statement = sqlite.prepare(sql);
      if (cached === undefined) statements.set(sql, statement);
      return statement;
    },
    get cachedCount() {
      return statements.size;
    },
  };
}
