import type { Kysely } from 'kysely';

/**
 * Reasoning per connection (SPEC §2): `off | low | medium | high`, mapped by each provider adapter to its own
 * parameter. Existing connections stay `off`, as they behaved before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('ai_connections')
    .addColumn('reasoning', 'text', (column) => column.notNull().defaultTo('off'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ai_connections').dropColumn('reasoning').execute();
}
