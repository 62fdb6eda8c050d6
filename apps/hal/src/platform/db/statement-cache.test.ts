import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cachedStatements } from './statement-cache.js';

interface Db {
  items: { id: number; name: string };
}

let sqlite: BetterSqlite3.Database | undefined;
afterEach(() => {
  if (sqlite?.open) sqlite.close();
  sqlite = undefined;
});

function open(size?: number) {
  sqlite = new BetterSqlite3(':memory:');
  sqlite.exec('create table items (id integer primary key, name text not null)');
  const prepare = vi.spyOn(sqlite, 'prepare');
  const database = cachedStatements(sqlite, size);
  const db = new Kysely<Db>({ dialect: new SqliteDialect({ database }) });
  return { db, database, prepare };
}

describe('cachedStatements', () => {
  it('prepares each SQL text once, whatever the parameters', async () => {
    const { db, prepare } = open();
    for (let id = 1; id <= 20; id += 1) {
      await db
        .insertInto('items')
        .values({ id, name: `n${id}` })
        .execute();
      const row = await db.selectFrom('items').selectAll().where('id', '=', id).executeTakeFirst();
      expect(row).toEqual({ id, name: `n${id}` });
    }
    // One insert shape and one select shape.
    expect(prepare).toHaveBeenCalledTimes(2);
  });

  it('gives a busy statement (one still iterating) a fresh one instead of failing', () => {
    const { database, prepare } = open();
    sqlite?.exec("insert into items values (1, 'a'), (2, 'b')");
    const sql = 'select name from items order by id';
    const outer = database.prepare(sql);
    const seen: string[] = [];
    for (const row of outer.iterate([]) as Iterable<{ name: string }>) {
      const inner = database.prepare(sql);
      expect(inner).not.toBe(outer);
      seen.push(
        row.name,
        ...(inner.all([]) as Array<{ name: string }>).map((entry) => `inner ${entry.name}`),
      );
    }
    expect(seen).toEqual(['a', 'inner a', 'inner b', 'b', 'inner a', 'inner b']);
    // Idle again: the cached one is handed out.
    expect(database.prepare(sql)).toBe(outer);
    expect(prepare).toHaveBeenCalledTimes(3);
  });

  it('drops the least recently used text beyond its size and still answers', async () => {
    const { db, database, prepare } = open(2);
    sqlite?.exec("insert into items values (1, 'a')");
    const a = () => db.selectFrom('items').select('id').execute();
    const b = () => db.selectFrom('items').select('name').execute();
    const c = () => db.selectFrom('items').selectAll().execute();
    await a();
    await b();
    await a();
    expect(prepare).toHaveBeenCalledTimes(2);
    await c(); // drops b: a was used since
    expect(await a()).toEqual([{ id: 1 }]);
    expect(prepare).toHaveBeenCalledTimes(3);
    expect(await b()).toEqual([{ name: 'a' }]);
    expect(database.cachedCount).toBe(2);
    expect(prepare).toHaveBeenCalledTimes(4);
  });

  it('re-prepares by itself after a schema change (a migration needs no invalidation)', async () => {
    const { db } = open();
    await db.insertInto('items').values({ id: 1, name: 'a' }).execute();
    expect(await db.selectFrom('items').selectAll().execute()).toEqual([{ id: 1, name: 'a' }]);
    sqlite?.exec("alter table items add column extra text default 'x'");
    expect(await db.selectFrom('items').selectAll().execute()).toEqual([{ id: 1, name: 'a', extra: 'x' }]);
  });
});
