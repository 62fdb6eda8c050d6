import type { Kysely } from 'kysely';

/** `vault_entries`: sealed secrets of `@hal-ai/vault`, one row per id. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('vault_entries')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('sealed', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('vault_entries').execute();
}
