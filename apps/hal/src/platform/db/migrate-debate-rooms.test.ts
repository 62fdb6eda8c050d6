import { Migrator, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenDatabase, openDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';
import { migrationProvider } from './migrations/index.js';

let database: OpenDatabase;
afterEach(async () => {
  await database.close();
});

describe('0010: debate rooms and room budgets', () => {
  it('widens the room kind without losing a message, turn or action, and keeps the cascade', async () => {
    database = openDatabase(':memory:');
    const { db } = database;
    const migrator = new Migrator({ db, provider: migrationProvider });
    const before = await migrator.migrateTo('0009-ai-connection-reasoning');
    expect(before.error).toBeUndefined();
    await sql`insert into ai_rooms (id, kind, position, created_at) values ('u', 'unified', 0, 't')`.execute(
      db,
    );
    await sql`insert into ai_messages (id, room_id, seq, role, content_json, status, created_at)
      values ('m1', 'u', 1, 'user', '[]', 'complete', 't')`.execute(db);
    await expect(
      sql`insert into ai_rooms (id, kind, position, created_at) values ('d', 'debate', 1, 't')`.execute(db),
    ).rejects.toThrow(/CHECK/);

    expect((await migrateToLatest(db)).applied.slice(0, 2)).toEqual([
      '0010-ai-room-debate-budget',
      '0011-ai-debates',
    ]);
    const { rows } = await sql<{ id: string; tokens_used: number; token_budget: number | null }>`
      select id, tokens_used, token_budget from ai_rooms`.execute(db);
    expect(rows).toEqual([{ id: 'u', tokens_used: 0, token_budget: null }]);
    expect((await sql`select id, room_id from ai_messages`.execute(db)).rows).toEqual([
      { id: 'm1', room_id: 'u' },
    ]);
    await sql`insert into ai_rooms (id, kind, position, created_at, token_budget) values ('d', 'debate', 1, 't', 500)`.execute(
      db,
    );
    await expect(
      sql`insert into ai_rooms (id, kind, position, created_at) values ('x', 'other', 2, 't')`.execute(db),
    ).rejects.toThrow(/CHECK/);
    await expect(
      sql`insert into ai_rooms (id, kind, position, created_at) values ('u2', 'unified', 3, 't')`.execute(db),
    ).rejects.toThrow(/UNIQUE/);
    expect(database.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    await sql`delete from ai_rooms where id = 'u'`.execute(db);
    const messages = await sql`select id from ai_messages`.execute(db);
    expect(messages.rows).toEqual([]);
  });
});
