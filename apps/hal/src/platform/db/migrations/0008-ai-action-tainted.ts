import { type Kysely, sql } from 'kysely';

/**
 * `ai_actions.tainted` (SPEC §14): 1 for a proposal made in a turn that read web content, whose approval needs the
 * operator's extra confirmation. Proposals made before this column existed read no web content: 0.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE ai_actions ADD COLUMN tainted INTEGER NOT NULL DEFAULT 0`.execute(db);
}
