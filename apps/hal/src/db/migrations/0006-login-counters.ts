import { type Kysely, sql } from 'kysely';

/**
 * Login rate limiting by atomic counters (one row per username + address, and per address) instead of one row
 * per failure: an attempt is counted by a single upsert before the password is checked, which holds under
 * concurrency (the old check-then-record let 25 concurrent guesses through).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE login_counters (
    key TEXT PRIMARY KEY,
    window_start INTEGER NOT NULL,
    count INTEGER NOT NULL
  )`.execute(db);
  await db.schema.dropTable('login_attempts').execute();
}
