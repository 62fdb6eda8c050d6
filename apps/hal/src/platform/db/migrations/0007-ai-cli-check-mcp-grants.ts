import type { Kysely } from 'kysely';
import { migrationDialect } from './migration-dialect.js';

/**
 * Local CLIs as first-class models: what the last check found about a connection's CLI (`cli_check`: path, version,
 * login state, time), and the short-lived grants that let the `hal mcp` HAL attaches to a CLI run post proposals as
 * that connection, in that turn's room (`ai_mcp_grants`; the token only as its SHA-256).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const dialect = migrationDialect(db);
  await db.schema.alterTable('ai_connections').addColumn('cli_check', 'text').execute();
  await db.schema
    .createTable('ai_mcp_grants')
    .addColumn('token_hash', 'text', (column) => column.primaryKey())
    .addColumn('room_id', 'text', (column) => column.notNull())
    .addColumn('connection_id', 'text', (column) => column.notNull())
    .addColumn('turn_id', 'text')
    .addColumn('expires_at', dialect.integer, (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ai_mcp_grants').execute();
  await db.schema.alterTable('ai_connections').dropColumn('cli_check').execute();
}
