/**
 * Where each of a debate's Wiki.js pages stands (`ai_debate_pages`, migration 0011): its Wiki.js id once created (so
 * later rounds update it), the hash of what was last published (an unchanged page is not sent again), and the last
 * failure with the number of attempts since the last success. Portable kysely only (SQLite and PostgreSQL alike).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { AiDebatePagesTable } from '../../platform/db/tables/ai-debates.js';

/** One page's row. */
export interface DebatePageRow {
  debateId: string;
  page: AiDebatePagesTable['page'];
  path: string;
  wikiPageId: number | null;
  status: AiDebatePagesTable['status'];
  contentHash: string | null;
  attempts: number;
  lastError: { code: string; message: string } | null;
  updatedAt: string;
}

/** The page rows of the debates. */
export interface DebatePageStore {
  /** A debate's rows, in page order (working document, round log, conclusion). */
  list(debateId: string): Promise<DebatePageRow[]>;
  /** Ids of the debates that have a page whose last attempt failed (start-up retries). */
  debatesWithFailures(): Promise<string[]>;
  /** Inserts or replaces one page's row. */
  save(row: DebatePageRow): Promise<void>;
}

const ORDER: readonly AiDebatePagesTable['page'][] = ['working-document', 'round-log', 'conclusion'];

/** Creates the kysely store over HAL's database. */
export function createKyselyDebatePageStore(db: Kysely<Database>): DebatePageStore {
  return {
    async list(debateId) {
      const rows = await db
        .selectFrom('ai_debate_pages')
        .selectAll()
        .where('debate_id', '=', debateId)
        .execute();
      return rows
        .map(
          (row): DebatePageRow => ({
            debateId: row.debate_id,
            page: row.page,
            path: row.path,
            wikiPageId: row.wiki_page_id === null ? null : Number(row.wiki_page_id),
            status: row.status,
            contentHash: row.content_hash,
            attempts: Number(row.attempts),
            lastError: row.last_error_json
              ? (JSON.parse(row.last_error_json) as DebatePageRow['lastError'])
              : null,
            updatedAt: row.updated_at,
          }),
        )
        .sort((a, b) => ORDER.indexOf(a.page) - ORDER.indexOf(b.page));
    },
    async debatesWithFailures() {
      const rows = await db
        .selectFrom('ai_debate_pages')
        .select('debate_id')
        .distinct()
        .where('status', '=', 'failed')
        .orderBy('debate_id')
        .execute();
      return rows.map((row) => row.debate_id);
    },
    async save(row) {
      const values = {
        path: row.path,
        wiki_page_id: row.wikiPageId,
        status: row.status,
        content_hash: row.contentHash,
        attempts: row.attempts,
        last_error_json: row.lastError ? JSON.stringify(row.lastError) : null,
        updated_at: row.updatedAt,
      };
      await db
        .insertInto('ai_debate_pages')
        .values({ debate_id: row.debateId, page: row.page, ...values })
        .onConflict((conflict) => conflict.columns(['debate_id', 'page']).doUpdateSet(values))
        .execute();
    },
  };
}
