import { describe } from 'vitest';
import type { OpenDatabase } from './database.js';
import { openDatabase } from './database.js';
import { describePostgres, openPostgresTestDatabase } from './database-postgres.test-support.js';
import { migrateToLatest } from './migrate.js';

/** One dialect a store suite runs on: its name and how to open a fresh, migrated database of it. */
export interface TestDialect {
  name: 'sqlite' | 'postgres';
  /** A fresh, migrated database (SQLite in memory; PostgreSQL: a database of its own, dropped on close). */
  open(): Promise<OpenDatabase>;
}

const sqliteDialect: TestDialect = {
  name: 'sqlite',
  async open() {
    const database = openDatabase(':memory:');
    await migrateToLatest(database.db);
    return database;
  },
};

const postgresDialect: TestDialect = { name: 'postgres', open: openPostgresTestDatabase };

/**
 * Runs a store suite on both dialects (SPEC §15): always on SQLite, and on PostgreSQL when `HAL_TEST_DATABASE_URL`
 * is set (else that half is skipped and its name says why).
 */
export function describeEachDialect(name: string, body: (dialect: TestDialect) => void): void {
  describe(`${name} (SQLite)`, () => body(sqliteDialect));
  describePostgres(name, () => body(postgresDialect));
}
