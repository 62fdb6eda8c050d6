import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe } from 'vitest';
import { openPostgresDatabase, type PostgresOpenDatabase } from './database-postgres.js';
import { migrateToLatest } from './migrate.js';

/**
 * The PostgreSQL server the PostgreSQL suites run against: `HAL_TEST_DATABASE_URL` (CI starts one with
 * `scripts/test-postgres.sh`). Unset → those suites are skipped, and their name says why.
 */
export const TEST_DATABASE_URL: string | undefined = process.env.HAL_TEST_DATABASE_URL?.trim() || undefined;

/** Why the PostgreSQL suites are skipped, shown in the skipped suite's name. */
export const POSTGRES_SKIP_REASON =
  'skipped: HAL_TEST_DATABASE_URL is not set (scripts/test-postgres.sh starts one)';

/** `describe` that runs on PostgreSQL when `HAL_TEST_DATABASE_URL` is set, and is skipped with the reason otherwise. */
export function describePostgres(name: string, body: () => void): void {
  if (TEST_DATABASE_URL === undefined) describe.skip(`${name} (${POSTGRES_SKIP_REASON})`, body);
  else describe(`${name} (PostgreSQL)`, body);
}

/** A fresh, empty database on the test server; `drop` removes it (and ends its connections). */
export interface PostgresTestDatabase {
  url: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/**
 * Creates a database of its own for one test (names are random, so parallel test files never meet), empty or as a
 * copy of `template`.
 */
export async function createPostgresTestDatabase(
  baseUrl = TEST_DATABASE_URL,
  template?: string,
): Promise<PostgresTestDatabase> {
  if (baseUrl === undefined) throw new Error(POSTGRES_SKIP_REASON);
  const name = `hal_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}${template === undefined ? '' : ` TEMPLATE ${template}`}`);
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(baseUrl, name),
    async drop() {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

let migratedTemplate: Promise<string> | undefined;

/**
 * A database migrated once per test process, copied for every test (a copy takes a fraction of what migrating
 * takes). It stays on the throwaway test server.
 */
function migratedTemplateName(): Promise<string> {
  migratedTemplate ??= (async () => {
    const template = await createPostgresTestDatabase();
    const database = openPostgresDatabase(template.url);
    try {
      await migrateToLatest(database.db);
    } finally {
      // A template must have no open connection while it is copied.
      await database.close();
    }
    return new URL(template.url).pathname.slice(1);
  })();
  return migratedTemplate;
}

/** A fresh database of its own with HAL's whole schema (a copy of the migrated template). */
export async function createMigratedPostgresTestDatabase(): Promise<PostgresTestDatabase> {
  return createPostgresTestDatabase(TEST_DATABASE_URL, await migratedTemplateName());
}

/** A migrated PostgreSQL HAL database of its own; `close` closes it and drops it. */
export async function openPostgresTestDatabase(): Promise<PostgresOpenDatabase> {
  const target = await createMigratedPostgresTestDatabase();
  const database = openPostgresDatabase(target.url);
  const close = database.close;
  return {
    ...database,
    async close() {
      await close();
      await target.drop();
    },
  };
}
