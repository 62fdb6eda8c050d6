import { HalError } from '@hal-ai/spec';
import { type Kysely, Migrator } from 'kysely';
import { migrationProvider } from './migrations/index.js';

/** What `migrateToLatest` did. */
export interface MigrateResult {
  /** Names of the migrations applied by this call, in order. */
  applied: string[];
}

/**
 * Brings the database to the newest schema. kysely reports failures in its result rather than
 * throwing; this checks it and throws a HalError naming the failed migration, so start-up can
 * print it and exit 1.
 */
// biome-ignore lint/suspicious/noExplicitAny: any schema can be migrated; kysely types Kysely<T> invariantly.
export async function migrateToLatest(db: Kysely<any>): Promise<MigrateResult> {
  // Migrations are numbered by area and land in any order (0013 was merged after 0014): each one is independent,
  // so one missing below the newest applied is applied, not refused as a corrupted history.
  const migrator = new Migrator({ db, provider: migrationProvider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error !== undefined || failed !== undefined) {
    const reason = error instanceof Error ? error.message : String(error ?? 'unknown error');
    const name = failed?.migrationName;
    throw new HalError(
      'internal_error',
      name === undefined
        ? `database migration failed: ${reason}`
        : `database migration "${name}" failed: ${reason}`,
      { cause: error, details: name === undefined ? {} : { migration: name } },
    );
  }
  return {
    applied: (results ?? []).filter((result) => result.status === 'Success').map((r) => r.migrationName),
  };
}
