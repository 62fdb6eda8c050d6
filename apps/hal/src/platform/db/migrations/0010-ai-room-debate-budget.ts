import { type Kysely, sql } from 'kysely';
import { migrationDialect } from './migration-dialect.js';

/**
 * Debate rooms and room token budgets (SPEC §9, issue #18): `ai_rooms.kind` also takes `debate`, and every room
 * gets `token_budget` (null: none) and `tokens_used` (provider-reported, added per model call).
 *
 * The new columns are plain `alterTable … addColumn`. Widening the `kind` check is dialect-specific and cannot be
 * avoided: PostgreSQL replaces the named constraint; SQLite cannot alter a check, so the table is rebuilt the way
 * SQLite documents (foreign keys off — the migrator runs SQLite migrations outside a transaction — copy, swap,
 * check, foreign keys on), which keeps every message, turn and action row that references a room.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const dialect = migrationDialect(db);
  await db.schema.alterTable('ai_rooms').addColumn('token_budget', dialect.integer).execute();
  await db.schema
    .alterTable('ai_rooms')
    .addColumn('tokens_used', dialect.integer, (column) => column.notNull().defaultTo(0))
    .execute();
  if (dialect.postgres) {
    await sql`alter table ai_rooms drop constraint if exists ai_rooms_kind_check`.execute(db);
    await sql`alter table ai_rooms add constraint ai_rooms_kind_check check (kind in ('unified', 'direct', 'debate'))`.execute(
      db,
    );
    return;
  }
  await rebuildSqliteRooms(db, ['unified', 'direct', 'debate']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from ai_rooms where kind = 'debate'`.execute(db);
  if (migrationDialect(db).postgres) {
    await sql`alter table ai_rooms drop constraint if exists ai_rooms_kind_check`.execute(db);
    await sql`alter table ai_rooms add constraint ai_rooms_kind_check check (kind in ('unified', 'direct'))`.execute(
      db,
    );
  } else {
    await rebuildSqliteRooms(db, ['unified', 'direct']);
  }
  await db.schema.alterTable('ai_rooms').dropColumn('tokens_used').execute();
  await db.schema.alterTable('ai_rooms').dropColumn('token_budget').execute();
}

async function rebuildSqliteRooms(db: Kysely<unknown>, kinds: readonly string[]): Promise<void> {
  const allowed = sql.join(kinds.map((kind) => sql.lit(kind)));
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.schema
      .createTable('ai_rooms_next')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('kind', 'text', (column) => column.notNull().check(sql`kind in (${allowed})`))
      .addColumn('connection_id', 'text', (column) => column.unique())
      .addColumn('connection_name', 'text')
      .addColumn('custom_title', 'text')
      .addColumn('position', 'integer', (column) => column.notNull())
      .addColumn('last_seq', 'integer', (column) => column.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (column) => column.notNull())
      .addColumn('token_budget', 'integer')
      .addColumn('tokens_used', 'integer', (column) => column.notNull().defaultTo(0))
      .execute();
    await sql`insert into ai_rooms_next (id, kind, connection_id, connection_name, custom_title, position, last_seq, created_at, token_budget, tokens_used)
      select id, kind, connection_id, connection_name, custom_title, position, last_seq, created_at, token_budget, tokens_used from ai_rooms`.execute(
      db,
    );
    await db.schema.dropTable('ai_rooms').execute();
    await db.schema.alterTable('ai_rooms_next').renameTo('ai_rooms').execute();
    await sql`create unique index ai_rooms_one_unified on ai_rooms (kind) where kind = 'unified'`.execute(db);
    const { rows } = await sql`pragma foreign_key_check`.execute(db);
    if (rows.length > 0) throw new Error(`ai_rooms rebuild left ${rows.length} dangling references`);
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}
