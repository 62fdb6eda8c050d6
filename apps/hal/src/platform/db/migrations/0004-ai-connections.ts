import type { Kysely } from 'kysely';
import { migrationDialect } from './migration-dialect.js';

/** `ai_connections` and `ai_oauth_states` (secrets live in `vault_entries`, never here). */
export async function up(db: Kysely<unknown>): Promise<void> {
  const dialect = migrationDialect(db);
  await db.schema
    .createTable('ai_connections')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('position', dialect.integer, (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('provider', 'text', (column) => column.notNull())
    .addColumn('auth', 'text', (column) => column.notNull())
    .addColumn('base_url', 'text')
    .addColumn('model', 'text')
    .addColumn('models', 'text')
    .addColumn('identity', 'text', (column) => column.notNull())
    .addColumn('tools', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('last_checked_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('oauth', 'text')
    .addColumn('cli_tool', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('ai_connections_position').on('ai_connections').column('position').execute();
  await db.schema
    .createTable('ai_oauth_states')
    .addColumn('state_hash', 'text', (column) => column.primaryKey())
    .addColumn('connection_id', 'text', (column) => column.notNull())
    .addColumn('operator_id', 'text', (column) => column.notNull())
    .addColumn('redirect_uri', 'text', (column) => column.notNull())
    .addColumn('expires_at', dialect.integer, (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ai_oauth_states').execute();
  await db.schema.dropTable('ai_connections').execute();
}
