import { afterEach, beforeEach, expect, it } from 'vitest';
import { createManualClock } from '../../../test/foundation.test-support.js';
import type { OpenDatabase } from '../../platform/db/database.js';
import { describeEachDialect } from '../../platform/db/database-dialects.test-support.js';
import { createKyselyRoomStore } from '../rooms/kysely-room-store.js';
import { createKyselyDebatePageStore, type DebatePageRow } from './kysely-debate-page-store.js';
import { createKyselyDebateStore } from './kysely-debate-store.js';

describeEachDialect('debate page store', (dialect) => {
  let database: OpenDatabase;
  const clock = createManualClock();

  beforeEach(async () => {
    database = await dialect.open();
  });
  afterEach(async () => {
    await database.close();
  });

  /** A stored debate (the pages' rows belong to one). */
  async function debate(id: string) {
    const room = await createKyselyRoomStore(database.db, clock).createDebateRoom({
      title: id,
      tokenBudget: 200_000,
    });
    const now = new Date(clock.now()).toISOString();
    await createKyselyDebateStore(database.db).createDebate({
      id,
      roomId: room.id,
      topic: id,
      slug: `${id}-slug`,
      status: 'running',
      moderatorId: 'mod',
      debaterIds: ['a', 'b'],
      round: 0,
      maxRounds: 8,
      tokenBudget: 200_000,
      agreementStreak: 0,
      lastVerdict: null,
      question: null,
      reason: null,
      document: { version: 0, text: '' },
      conclusion: null,
      summaryEvery: 3,
      compactedSummary: null,
      compactedThrough: 0,
      direction: null,
      notes: [],
      pending: null,
      operator: null,
      createdAt: now,
      updatedAt: now,
    });
    return id;
  }

  const row = (debateId: string, page: DebatePageRow['page'], changes: Partial<DebatePageRow> = {}) => ({
    debateId,
    page,
    path: `debates/${debateId}-slug/${page}`,
    wikiPageId: null,
    status: 'published' as const,
    contentHash: null,
    attempts: 0,
    lastError: null,
    updatedAt: new Date(clock.now()).toISOString(),
    ...changes,
  });

  it('inserts, replaces and lists the pages in page order, and finds the debates with a failed page', async () => {
    const pages = createKyselyDebatePageStore(database.db);
    const one = await debate('d1');
    const two = await debate('d2');
    await pages.save(row(one, 'conclusion', { wikiPageId: 9, contentHash: 'c1' }));
    await pages.save(
      row(one, 'round-log', {
        status: 'failed',
        attempts: 1,
        lastError: { code: 'wiki_http_error', message: 'Wiki.js answered HTTP 500' },
      }),
    );
    await pages.save(row(one, 'working-document', { wikiPageId: 7, contentHash: 'w1' }));
    await pages.save(row(two, 'working-document', { wikiPageId: 8, contentHash: 'x' }));
    expect(await pages.debatesWithFailures()).toEqual([one]);

    // The failed page is published later: the same row is replaced (its id kept by the caller), attempts reset.
    await pages.save(row(one, 'round-log', { wikiPageId: 12, contentHash: 'r2', attempts: 0 }));
    const listed = await pages.list(one);
    expect(listed.map((entry) => [entry.page, entry.wikiPageId, entry.status, entry.attempts])).toEqual([
      ['working-document', 7, 'published', 0],
      ['round-log', 12, 'published', 0],
      ['conclusion', 9, 'published', 0],
    ]);
    expect(listed[1]?.lastError).toBeNull();
    expect(await pages.debatesWithFailures()).toEqual([]);
    expect(await pages.list('unknown')).toEqual([]);
  });
});
