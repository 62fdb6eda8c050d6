import { type Kysely, sql } from 'kysely';
import { migrationDialect } from './migration-dialect.js';

/** Operators, sessions, audit chain, login attempts, threeStep confirm tokens, operator preferences. */
export async function up(db: Kysely<unknown>): Promise<void> {
  const dialect = migrationDialect(db);
  await db.schema
    .createTable('operators')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('username', 'text', (col) => col.notNull().unique())
    .addColumn('password_hash', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('password_changed_at', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('operator_id', 'text', (col) => col.notNull().references('operators.id').onDelete('cascade'))
    .addColumn('csrf_token', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('last_seen_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .addColumn('recent_auth_until', 'text')
    .execute();
  await db.schema.createIndex('sessions_operator_idx').on('sessions').column('operator_id').execute();

  // SQLite: AUTOINCREMENT (not just rowid) so ids are never reused and sqlite_sequence remembers the highest id
  // ever written: that lets verification notice rows deleted from the tail. PostgreSQL sequences skip values on
  // rollback, but the chain's ids must have no gaps: there ids come from `audit_head`, whose one row every append
  // locks (serialising appends across instances) and which remembers the highest id ever written.
  const auditId = sql.raw(dialect.postgres ? 'BIGINT PRIMARY KEY' : 'INTEGER PRIMARY KEY AUTOINCREMENT');
  await sql`CREATE TABLE audit (
    id ${auditId},
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT,
    details TEXT,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
  )`.execute(db);
  if (dialect.postgres) {
    await sql`CREATE TABLE audit_head (
      one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one),
      last_id BIGINT NOT NULL
    )`.execute(db);
    await sql`INSERT INTO audit_head (one, last_id) VALUES (TRUE, 0)`.execute(db);
  }
  await db.schema.createIndex('audit_action_idx').on('audit').column('action').execute();

  await db.schema
    .createTable('login_attempts')
    .addColumn('id', dialect.serialId.type, dialect.serialId.build)
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('at', dialect.integer, (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('login_attempts_key_at_idx')
    .on('login_attempts')
    .columns(['key', 'at'])
    .execute();

  await db.schema
    .createTable('confirm_tokens')
    .addColumn('token_hash', 'text', (col) => col.primaryKey())
    .addColumn('operator_id', 'text', (col) => col.notNull().references('operators.id').onDelete('cascade'))
    .addColumn('action', 'text', (col) => col.notNull())
    .addColumn('target', 'text', (col) => col.notNull())
    .addColumn('subject_hash', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', dialect.integer, (col) => col.notNull())
    .addColumn('used_at', 'text')
    .execute();

  await db.schema
    .createTable('operator_prefs')
    .addColumn('operator_id', 'text', (col) => col.notNull().references('operators.id').onDelete('cascade'))
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('value', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('operator_prefs_pk', ['operator_id', 'key'])
    .execute();
}

/** Drops the foundation tables. */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'operator_prefs',
    'confirm_tokens',
    'login_attempts',
    'audit',
    'audit_head',
    'sessions',
    'operators',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
