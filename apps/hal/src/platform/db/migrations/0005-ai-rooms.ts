import { type Kysely, sql } from 'kysely';
import { migrationDialect } from './migration-dialect.js';

/** Rooms, messages, turns and proposals of the AI panel (`@hal-ai/rooms` over SQL). */
export async function up(db: Kysely<unknown>): Promise<void> {
  const dialect = migrationDialect(db);
  await db.schema
    .createTable('ai_rooms')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('kind', 'text', (column) => column.notNull().check(sql`kind in ('unified', 'direct')`))
    .addColumn('connection_id', 'text', (column) => column.unique())
    .addColumn('connection_name', 'text')
    .addColumn('custom_title', 'text')
    .addColumn('position', dialect.integer, (column) => column.notNull())
    .addColumn('last_seq', dialect.integer, (column) => column.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();
  // At most one unified room, even when two processes create it at once.
  await sql`create unique index ai_rooms_one_unified on ai_rooms (kind) where kind = 'unified'`.execute(db);

  await db.schema
    .createTable('ai_messages')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('room_id', 'text', (column) => column.notNull().references('ai_rooms.id').onDelete('cascade'))
    .addColumn('seq', dialect.integer, (column) => column.notNull())
    .addColumn('role', 'text', (column) => column.notNull())
    .addColumn('connection_id', 'text')
    .addColumn('model', 'text')
    .addColumn('content_json', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('error_json', 'text')
    .addColumn('relay_depth', dialect.integer, (column) => column.notNull().defaultTo(0))
    .addColumn('relayed_from', 'text')
    .addColumn('usage_json', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addUniqueConstraint('ai_messages_room_seq', ['room_id', 'seq'])
    .execute();
  await db.schema.createIndex('ai_messages_status').on('ai_messages').column('status').execute();

  await db.schema
    .createTable('ai_turns')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('room_id', 'text', (column) => column.notNull().references('ai_rooms.id').onDelete('cascade'))
    .addColumn('connection_id', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('relay_depth', dialect.integer, (column) => column.notNull().defaultTo(0))
    .addColumn('relayed_from', 'text')
    .addColumn('trigger_message_id', 'text')
    .addColumn('error_json', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('ai_turns_status').on('ai_turns').columns(['status', 'room_id']).execute();

  await db.schema
    .createTable('ai_actions')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('room_id', 'text', (column) => column.notNull().references('ai_rooms.id').onDelete('cascade'))
    .addColumn('connection_id', 'text')
    .addColumn('source', 'text', (column) => column.notNull())
    .addColumn('tool', 'text', (column) => column.notNull())
    .addColumn('args_json', 'text', (column) => column.notNull())
    .addColumn('risk', 'text', (column) => column.notNull())
    .addColumn('identifiers_json', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', 'text')
    .addColumn('result_json', 'text', (column) => column.notNull().defaultTo('null'))
    .addColumn('error_json', 'text')
    .addColumn('args_canonical', 'text', (column) => column.notNull())
    .addColumn('args_hash', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('tool_call_id', 'text')
    .addColumn('turn_id', 'text')
    .addColumn('client_name', 'text')
    .addColumn('reason', 'text')
    .addColumn('change_seq', dialect.integer, (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('ai_actions_room_change')
    .on('ai_actions')
    .columns(['room_id', 'change_seq'])
    .execute();
  await db.schema.createIndex('ai_actions_status').on('ai_actions').column('status').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ai_actions').execute();
  await db.schema.dropTable('ai_turns').execute();
  await db.schema.dropTable('ai_messages').execute();
  await db.schema.dropTable('ai_rooms').execute();
}
