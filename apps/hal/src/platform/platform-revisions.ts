import { type Kysely, sql } from 'kysely';
import type { Database } from './db/schema.js';

/**
 * A counter in `hal_revisions` shared by every process on the database (SPEC §15). A process that keeps a copy of
 * some shared state in memory (built models, connection views) remembers the revision it built the copy at and
 * reads the current one before each use: the read is one primary-key lookup, far cheaper than rebuilding, and a
 * write by any instance — or by `hal mcp` — shows at once.
 */
export interface SharedRevision {
  /** The current revision (0 before the first bump). */
  read(): Promise<number>;
  /** Records one more write of the guarded state (one atomic upsert, safe under concurrent writers). */
  bump(): Promise<void>;
}

/**
 * Creates the shared revision named `name`.
 *
 * @example
 * const revision = createSharedRevision(db, 'ai_connections');
 * await store.patch(id, changes);
 * await revision.bump();
 */
export function createSharedRevision(db: Kysely<Database>, name: string): SharedRevision {
  return {
    async read() {
      const row = await db
        .selectFrom('hal_revisions')
        .select('revision')
        .where('name', '=', name)
        .executeTakeFirst();
      return Number(row?.revision ?? 0);
    },
    async bump() {
      await db
        .insertInto('hal_revisions')
        .values({ name, revision: 1 })
        .onConflict((conflict) =>
          conflict.column('name').doUpdateSet({ revision: sql`hal_revisions.revision + 1` }),
        )
        .execute();
    },
  };
}
