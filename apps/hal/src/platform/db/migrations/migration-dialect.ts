import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { isPostgres } from '../database-dialect.js';

/**
 * What differs between SQLite and PostgreSQL in HAL's migrations (SPEC §15: the same migrations for both dialects,
 * one definition where kysely allows and a dialect branch where it does not). Everything else — tables, indexes,
 * partial unique indexes, checks, defaults — is one kysely definition.
 */
export interface MigrationDialect {
  postgres: boolean;
  /**
   * The type of every integer column. SQLite's `integer` is 64-bit; PostgreSQL's is 32-bit, too small for the epoch
   * milliseconds HAL stores, so PostgreSQL gets `bigint` (read back as numbers, see `openPostgresDatabase`).
   */
  integer: 'integer' | 'bigint';
  /** An ever-increasing surrogate key: SQLite's `integer primary key autoincrement`, PostgreSQL's `bigserial`. */
  serialId: {
    type: 'integer' | 'bigserial';
    build: (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;
  };
}

/** The dialect branch points of a migration running on `db`. */
export function migrationDialect(db: Kysely<unknown>): MigrationDialect {
  const postgres = isPostgres(db);
  return postgres
    ? { postgres, integer: 'bigint', serialId: { type: 'bigserial', build: (column) => column.primaryKey() } }
    : {
        postgres,
        integer: 'integer',
        serialId: { type: 'integer', build: (column) => column.primaryKey().autoIncrement() },
      };
}
