import { type Kysely, PostgresAdapter } from 'kysely';

/**
 * Whether `db` (a `Kysely` or a transaction) talks to PostgreSQL: kysely's adapter says which dialect built it. The
 * few stores whose SQL differs per dialect (the audit chain's high-water mark, job claims) branch on it.
 */
// biome-ignore lint/suspicious/noExplicitAny: any schema; kysely types Kysely<T> invariantly.
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
