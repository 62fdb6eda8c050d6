import { createHash } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { PREPARED_STATEMENT_MARK } from './compiled-queries.js';
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
  /**
   * Send the hot queries (the compiled shapes marked with `PREPARED_STATEMENT_MARK`) as named prepared statements,
   * parsed and planned once per connection (default true; the host's `HAL_DATABASE_PREPARED_STATEMENTS`). False
   * sends them unnamed, parsed again on every call, like every other query.
   */
  preparedStatements?: boolean;
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
 * A `pg.Client` class that sends a marked SQL text (see `PREPARED_STATEMENT_MARK`) as a named statement: `pg` then
 * parses it on a connection only the first time and afterwards only binds and executes it. The name is the text's
 * hash, so one name never stands for two texts; the marked texts are the compiled query shapes, a set the code
 * bounds, so each connection holds a bounded number of statements. Every other query goes through unchanged.
 */
function namedStatementClient(): typeof pg.Client {
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (name === undefined) {
      name = `hal_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
      names.set(text, name);
    }
    return name;
  };
  return class NamedStatementClient extends pg.Client {
    // biome-ignore lint/suspicious/noExplicitAny: pg's query has a dozen overloads; this only reroutes one shape.
    override query(...args: any[]): any {
      const [text, values, callback] = args;
      if (
        typeof text === 'string' &&
        text.startsWith(PREPARED_STATEMENT_MARK) &&
        typeof values !== 'function'
      ) {
        return super.query({ name: nameOf(text), text, values }, callback);
      }
      // biome-ignore lint/suspicious/noExplicitAny: see above.
      return (super.query as any)(...args);
    }
  };
}

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
    ...((settings.preparedStatements ?? true) ? { Client: namedStatementClient() } : {}),
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
