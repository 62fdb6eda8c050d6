import type { Kysely } from 'kysely';
import { migrationDialect } from './migration-dialect.js';

/**
 * Login rate limiting by atomic counters (one row per username + address, and per address) instead of one row
 * per failure: an attempt is counted by a single upsert before the password is checked, which holds under
 * concurrency (the old check-then-record let 25 concurrent guesses through).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const dialect = migrationDialect(db);
  await db.schema
    .createTable('login_counters')
    .addColumn('key', 'text', (column) => column.primaryKey())
    .addColumn('window_start', dialect.integer, (column) => column.notNull())
    .addColumn('count', dialect.integer, (column) => column.notNull())
    .execute();
  await db.schema.dropTable('login_attempts').execute();
}
