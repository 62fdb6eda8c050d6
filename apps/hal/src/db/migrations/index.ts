import type { Migration, MigrationProvider } from 'kysely';

/**
 * Every migration, in order. A static provider (no directory scanning) so the bundled `hal`
 * binary carries its migrations. Each area of HAL adds its own file and one line here;
 * names sort lexically, so keep the numeric prefix.
 */
const migrations: Record<string, Migration> = {};

/** The migration provider `hal db migrate` and start-up use. */
export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
