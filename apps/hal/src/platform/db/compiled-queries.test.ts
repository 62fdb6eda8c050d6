import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createQueryCache, PREPARED_STATEMENT_MARK } from './compiled-queries.js';

interface Db {
  items: { id: string; name: string; kind: string; n: number };
}

let db: Kysely<Db> | undefined;
afterEach(async () => {
  await db?.destroy();
  db = undefined;
});

async function open() {
  const sqlite = new BetterSqlite3(':memory:');
  sqlite.exec(
    'create table items (id text primary key, name text not null, kind text not null, n integer not null)',
  );
  db = new Kysely<Db>({ dialect: new SqliteDialect({ database: sqlite }) });
  await db
    .insertInto('items')
    .values([
      { id: 'a', name: 'A', kind: 'x', n: 1 },
      { id: 'b', name: 'B', kind: 'y', n: 2 },
      { id: 'c', name: 'C', kind: 'x', n: 3 },
    ])
    .execute();
  return db;
}

describe('createQueryCache', () => {
  it('builds a shape once and binds new values each time, constants included', async () => {
    const kysely = await open();
    const queries = createQueryCache();
    const build = vi.fn((kind: string, above: string) =>
      kysely
        .selectFrom('items')
        .select(['id', 'n'])
        .where('kind', '=', kind)
        .where('n', '>', above as unknown as number)
        .where('name', '!=', 'nobody')
        .orderBy('n'),
    );
    expect(await queries.rows(kysely, 'by kind', build, ['x', 0])).toEqual([
      { id: 'a', n: 1 },
      { id: 'c', n: 3 },
    ]);
    expect(await queries.rows(kysely, 'by kind', build, ['x', 1])).toEqual([{ id: 'c', n: 3 }]);
    expect(await queries.rows(kysely, 'by kind', build, ['y', 0])).toEqual([{ id: 'b', n: 2 }]);
    expect(build).toHaveBeenCalledTimes(1);
    expect(queries.size).toBe(1);
  });

  it('with reuse off builds every query from its values, with the same results', async () => {
    const kysely = await open();
    const queries = createQueryCache({ reuse: false });
    const build = vi.fn((kind: string) =>
      kysely.selectFrom('items').select('id').where('kind', '=', kind).orderBy('id'),
    );
    expect(await queries.rows(kysely, 'by kind', build, ['x'])).toEqual([{ id: 'a' }, { id: 'c' }]);
    expect(await queries.rows(kysely, 'by kind', build, ['y'])).toEqual([{ id: 'b' }]);
    expect(build.mock.calls).toEqual([['x'], ['y']]);
    expect(queries.size).toBe(0);
  });

  it('runs writes, in a transaction too, and reports the rows changed', async () => {
    const kysely = await open();
    const queries = createQueryCache();
    const bump = (id: string) => kysely.updateTable('items').set({ n: sql`n + 10` }).where('id', '=', id);
    await kysely.transaction().execute(async (trx) => {
      expect(await queries.changes(trx, 'bump', bump, ['a'])).toBe(1);
      expect(await queries.changes(trx, 'bump', bump, ['nope'])).toBe(0);
    });
    const rows = await queries.rows(
      kysely,
      'insert returning',
      (id, name) =>
        kysely.insertInto('items').values({ id, name, kind: 'z', n: 0 }).returning(['id', 'name', 'kind']),
      ['d', 'D'],
    );
    expect(rows).toEqual([{ id: 'd', name: 'D', kind: 'z' }]);
    expect(await kysely.selectFrom('items').select('n').where('id', '=', 'a').executeTakeFirst()).toEqual({
      n: 11,
    });
  });

  it('refuses a placeholder used inside an expression, and the wrong number of values', async () => {
    const kysely = await open();
    const queries = createQueryCache();
    expect(() =>
      queries.compile(
        'like',
        (name) => kysely.selectFrom('items').selectAll().where('name', 'like', `%${name}%`),
        ['A'],
      ),
    ).toThrow(/inside an expression/);
    queries.compile('one', (id) => kysely.selectFrom('items').selectAll().where('id', '=', id), ['a']);
    expect(() =>
      queries.compile('one', (id) => kysely.selectFrom('items').selectAll().where('id', '=', id), ['a', 'b']),
    ).toThrow(/compiled for 1 values, given 2/);
  });

  it('marks the compiled shapes for prepared statements only when asked, and never a query built afresh', async () => {
    const kysely = await open();
    const build = (id: string) => kysely.selectFrom('items').select('name').where('id', '=', id);
    const plain = createQueryCache().compile('name', build, ['a']);
    const marked = createQueryCache({ prepared: true }).compile('name', build, ['a']);
    expect(plain.sql.startsWith(PREPARED_STATEMENT_MARK)).toBe(false);
    expect(marked.sql).toBe(`${PREPARED_STATEMENT_MARK}${plain.sql}`);
    expect(marked.parameters).toEqual(['a']);
    expect(await kysely.executeQuery(marked)).toMatchObject({ rows: [{ name: 'A' }] });
    const afresh = createQueryCache({ reuse: false, prepared: true }).compile('name', build, ['a']);
    expect(afresh.sql).toBe(plain.sql);
  });
});
