import type { Kysely } from 'kysely';
import { migrationDialect } from './migration-dialect.js';

/**
 * `hal_revisions`: one counter per kind of shared state that processes keep a copy of in memory (SPEC §15). A
 * process that writes such state bumps its counter; every process compares the counter it built its copy at with
 * the stored one before using the copy, so a change made by another instance (or `hal mcp`) is seen at once.
 * Rows are created by the first bump; a missing row reads as revision 0.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const dialect = migrationDialect(db);
  await db.schema
    .createTable('hal_revisions')
    .addColumn('name', 'text', (column) => column.primaryKey())
    .addColumn('revision', dialect.integer, (column) => column.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('hal_revisions').execute();
}
