import type { Kysely } from 'kysely';
import { migrationDialect } from './migration-dialect.js';

/**
 * Debates (SPEC §9, §14): the debate's state, its append-only round log, the working document's versions (one per
 * round) and where each Wiki.js page stands. Portable schema-builder DDL only (SQLite and PostgreSQL alike; integers are
 * `bigint` on PostgreSQL as everywhere in HAL).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const { integer } = migrationDialect(db);
  await db.schema
    .createTable('ai_debates')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('room_id', 'text', (column) =>
      column.notNull().unique().references('ai_rooms.id').onDelete('cascade'),
    )
    .addColumn('topic', 'text', (column) => column.notNull())
    .addColumn('slug', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('moderator_id', 'text', (column) => column.notNull())
    .addColumn('debater_ids_json', 'text', (column) => column.notNull())
    .addColumn('round', integer, (column) => column.notNull().defaultTo(0))
    .addColumn('max_rounds', integer, (column) => column.notNull())
    .addColumn('token_budget', integer, (column) => column.notNull())
    .addColumn('agreement_streak', integer, (column) => column.notNull().defaultTo(0))
    .addColumn('last_verdict_json', 'text')
    .addColumn('question', 'text')
    .addColumn('reason', 'text')
    .addColumn('document_version', integer, (column) => column.notNull().defaultTo(0))
    .addColumn('document_text', 'text', (column) => column.notNull().defaultTo(''))
    .addColumn('conclusion', 'text')
    .addColumn('summary_every', integer, (column) => column.notNull())
    .addColumn('compacted_summary', 'text')
    .addColumn('compacted_through', integer, (column) => column.notNull().defaultTo(0))
    .addColumn('direction', 'text')
    .addColumn('notes_json', 'text', (column) => column.notNull().defaultTo('[]'))
    .addColumn('pending_json', 'text')
    .addColumn('operator_json', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('ai_debates_status').on('ai_debates').column('status').execute();

  await db.schema
    .createTable('ai_debate_rounds')
    .addColumn('debate_id', 'text', (column) =>
      column.notNull().references('ai_debates.id').onDelete('cascade'),
    )
    .addColumn('n', integer, (column) => column.notNull())
    .addColumn('speaker_id', 'text', (column) => column.notNull())
    .addColumn('input', 'text', (column) => column.notNull())
    .addColumn('reply', 'text', (column) => column.notNull())
    .addColumn('verdict_json', 'text', (column) => column.notNull())
    .addColumn('document_version', integer, (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('ai_debate_rounds_pk', ['debate_id', 'n'])
    .execute();

  await db.schema
    .createTable('ai_debate_documents')
    .addColumn('debate_id', 'text', (column) =>
      column.notNull().references('ai_debates.id').onDelete('cascade'),
    )
    .addColumn('version', integer, (column) => column.notNull())
    .addColumn('text', 'text', (column) => column.notNull())
    .addColumn('round', integer, (column) => column.notNull())
    .addPrimaryKeyConstraint('ai_debate_documents_pk', ['debate_id', 'version'])
    .execute();

  await db.schema
    .createTable('ai_debate_pages')
    .addColumn('debate_id', 'text', (column) =>
      column.notNull().references('ai_debates.id').onDelete('cascade'),
    )
    .addColumn('page', 'text', (column) => column.notNull())
    .addColumn('path', 'text', (column) => column.notNull())
    .addColumn('wiki_page_id', integer)
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('content_hash', 'text')
    .addColumn('attempts', integer, (column) => column.notNull().defaultTo(0))
    .addColumn('last_error_json', 'text')
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('ai_debate_pages_pk', ['debate_id', 'page'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ai_debate_pages').execute();
  await db.schema.dropTable('ai_debate_documents').execute();
  await db.schema.dropTable('ai_debate_rounds').execute();
  await db.schema.dropTable('ai_debates').execute();
}
