import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { createQueryCache } from './compiled-queries.js';
import { isPostgres } from './database-dialect.js';
import type { PostgresOpenDatabase } from './database-postgres.js';
import { isPostgresUrl, openPostgresDatabase } from './database-postgres.js';
import { createPostgresTestDatabase, describePostgres } from './database-postgres.test-support.js';
import { migrateToLatest } from './migrate.js';
import { migrationProvider } from './migrations/index.js';

let database: PostgresOpenDatabase | undefined;
let drop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await database?.close();
  await drop?.();
  database = undefined;
  drop = undefined;
});

it('tells PostgreSQL URLs from file paths', () => {
  expect(isPostgresUrl('postgres://hal@127.0.0.1/hal')).toBe(true);
  expect(isPostgresUrl('postgresql://hal@127.0.0.1/hal')).toBe(true);
  expect(isPostgresUrl('/var/lib/hal/hal.db')).toBe(false);
});

describePostgres('openPostgresDatabase', () => {
  it('applies every migration of the SQLite schema once, and is idempotent', async () => {
    const target = await createPostgresTestDatabase();
    drop = target.drop;
    database = openPostgresDatabase(target.url);
    expect(isPostgres(database.db)).toBe(true);
    const all = Object.keys(await migrationProvider.getMigrations());
    expect((await migrateToLatest(database.db)).applied).toEqual(all);
    expect((await migrateToLatest(database.db)).applied).toEqual([]);
    const tables = await sql<{ name: string }>`
      SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`.execute(
      database.db,
    );
    expect(tables.rows.map((row) => row.name)).toEqual(
      expect.arrayContaining([
        'operators',
        'sessions',
        'audit',
        'login_counters',
        'ai_rooms',
        'ai_actions',
        'jobs',
      ]),
    );
  });

  it('stores epoch milliseconds in integer columns and reads counts back as numbers', async () => {
    const target = await createPostgresTestDatabase();
    drop = target.drop;
    database = openPostgresDatabase(target.url);
    await migrateToLatest(database.db);
    const at = Date.parse('2026-12-02T00:00:00Z');
    await database.db.insertInto('login_counters').values({ key: 'k', window_start: at, count: 1 }).execute();
    const row = await database.db.selectFrom('login_counters').selectAll().executeTakeFirstOrThrow();
    expect(row.window_start).toBe(at);
    const count = await database.db
      .selectFrom('login_counters')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(count.n).toBe(1);
  });

  it('sends the compiled query shapes as named prepared statements, and only them, unless told not to', async () => {
    const target = await createPostgresTestDatabase();
    drop = target.drop;
    // One connection, so the statement list read below is the session that ran the queries.
    const statementsAfterTwoRuns = async (preparedStatements: boolean) => {
      const opened = openPostgresDatabase(target.url, { maxConnections: 1, preparedStatements });
      try {
        await migrateToLatest(opened.db);
        const queries = createQueryCache({ prepared: true });
        const count = (key: string) =>
          queries.rows(
            opened.db,
            'counters of a key',
            (key) => opened.db.selectFrom('login_counters').select('count').where('key', '=', key),
            [key],
          );
        await opened.db
          .insertInto('login_counters')
          .values({ key: 'k', window_start: 1, count: 4 })
          .onConflict((conflict) => conflict.doNothing())
          .execute();
        expect(await count('k')).toEqual([{ count: 4 }]);
        expect(await count('other')).toEqual([]);
        const prepared = await sql<{ name: string; statement: string }>`
          SELECT name, statement FROM pg_prepared_statements`.execute(opened.db);
        return prepared.rows;
      } finally {
        await opened.close();
      }
    };
    const named = await statementsAfterTwoRuns(true);
    // One statement, parsed once for both runs, named after its text; the unmarked queries stayed unnamed.
    expect(named).toHaveLength(1);
    expect(named[0]?.name).toMatch(/^hal_[0-9a-f]{24}$/);
    expect(named[0]?.statement).toContain('login_counters');
    expect(await statementsAfterTwoRuns(false)).toEqual([]);
  });
});
