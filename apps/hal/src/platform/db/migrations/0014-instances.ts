import type { Kysely } from 'kysely';
import { migrationDialect } from './migration-dialect.js';

/**
 * Several processes on one database (SPEC §15): every HAL process (`hal serve`, `hal mcp`) has a row in
 * `hal_instances` that it refreshes while it runs (`heartbeat_at`, epoch ms), and the work it owns — running turns,
 * streaming messages, executing actions, running jobs — names it in `instance_id`. Start-up then interrupts only the
 * work of instances that stopped heartbeating. Rows written before this migration have no owner (`NULL`): no live
 * instance claims them, so they are treated as a stopped instance's, as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const dialect = migrationDialect(db);
  await db.schema
    .createTable('hal_instances')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('host', 'text', (column) => column.notNull())
    .addColumn('pid', dialect.integer, (column) => column.notNull())
    .addColumn('version', 'text', (column) => column.notNull())
    .addColumn('started_at', 'text', (column) => column.notNull())
    .addColumn('heartbeat_at', dialect.integer, (column) => column.notNull())
    .addColumn('stopped_at', 'text')
    .addColumn('jobs_json', 'text')
    .execute();
  await db.schema.createIndex('hal_instances_heartbeat').on('hal_instances').column('heartbeat_at').execute();
  for (const table of ['ai_turns', 'ai_messages', 'ai_actions', 'jobs']) {
    await db.schema.alterTable(table).addColumn('instance_id', 'text').execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['ai_turns', 'ai_messages', 'ai_actions', 'jobs']) {
    await db.schema.alterTable(table).dropColumn('instance_id').execute();
  }
  await db.schema.dropTable('hal_instances').execute();
}
