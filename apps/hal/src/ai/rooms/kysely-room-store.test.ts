import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { NewRoomMessage } from '@hal-ai/rooms';
import { describeRoomStoreContract } from '@hal-ai/rooms/testing';
import type { RoomMessage } from '@hal-ai/spec';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../platform/db/database.js';
import { openPostgresDatabase } from '../../platform/db/database-postgres.js';
import {
  createMigratedPostgresTestDatabase,
  openPostgresTestDatabase,
  POSTGRES_SKIP_REASON,
  TEST_DATABASE_URL,
} from '../../platform/db/database-postgres.test-support.js';
import { migrateToLatest } from '../../platform/db/migrate.js';
import type { Database } from '../../platform/db/schema.js';
import { createKyselyRoomStore } from './kysely-room-store.js';

describeRoomStoreContract(
  'kysely over a SQLite file',
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-rooms-'));
    const database = openDatabase(path.join(dir, 'hal.db'));
    await migrateToLatest(database.db);
    return {
      store: createKyselyRoomStore(database.db, { now: () => Date.parse('2026-11-30T12:00:00Z') }),
      async close() {
        await database.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  { describe, it, expect },
);

// The same contract with the hot queries built by kysely on every call and no statement cache: what
// `HAL_DATABASE_COMPILED_QUERIES=0 HAL_DATABASE_STATEMENT_CACHE=0` run, for the bench's on/off comparison.
describeRoomStoreContract(
  'kysely over a SQLite file, without compiled queries or the statement cache',
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-rooms-'));
    const database = openDatabase(path.join(dir, 'hal.db'), { statementCache: false });
    await migrateToLatest(database.db);
    return {
      store: createKyselyRoomStore(
        database.db,
        { now: () => Date.parse('2026-11-30T12:00:00Z') },
        {
          compiledQueries: false,
        },
      ),
      async close() {
        await database.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  { describe, it, expect },
);

const message = (id: string): NewRoomMessage => ({
  id,
  roomId: '',
  role: 'user',
  connectionId: null,
  model: null,
  content: [{ type: 'text', text: id }],
  status: 'complete',
  error: null,
  relayDepth: 0,
  relayedFrom: null,
  usage: null,
  createdAt: '2026-11-30T12:00:00.000Z',
});

// The same contract on PostgreSQL (SPEC §15), when a test server is given (else skipped, saying why).
if (TEST_DATABASE_URL === undefined) {
  describe.skip(`RoomStore contract: kysely over PostgreSQL (${POSTGRES_SKIP_REASON})`, () => {
    it('runs the contract', () => {});
  });
} else {
  describeRoomStoreContract(
    'kysely over PostgreSQL',
    async () => {
      const database = await openPostgresTestDatabase();
      return {
        store: createKyselyRoomStore(database.db, { now: () => Date.parse('2026-11-30T12:00:00Z') }),
        close: () => database.close(),
      };
    },
    { describe, it, expect },
  );
  // What `HAL_DATABASE_SINGLE_STATEMENT_APPEND=0 HAL_DATABASE_PREPARED_STATEMENTS=0` run: the append as a transaction.
  describeRoomStoreContract(
    'kysely over PostgreSQL, appending in a transaction, without prepared statements',
    async () => {
      const target = await createMigratedPostgresTestDatabase();
      const database = openPostgresDatabase(target.url, { preparedStatements: false });
      return {
        store: createKyselyRoomStore(
          database.db,
          { now: () => Date.parse('2026-11-30T12:00:00Z') },
          { singleStatementAppend: false },
        ),
        async close() {
          await database.close();
          await target.drop();
        },
      };
    },
    { describe, it, expect },
  );

  describe('appending a message on PostgreSQL', () => {
    it('takes one statement (the counter and the row together), or four as a transaction', async () => {
      const database = await openPostgresTestDatabase();
      try {
        const statementsOf = async (singleStatementAppend: boolean) => {
          const sent: string[] = [];
          // The same pool, with every statement it is sent (BEGIN and COMMIT included) written down.
          const logged = new Kysely<Database>({
            dialect: new PostgresDialect({ pool: database.pool }),
            log: (event) => {
              sent.push(event.query.sql);
            },
          });
          const store = createKyselyRoomStore(
            logged,
            { now: () => Date.parse('2026-11-30T12:00:00Z') },
            { singleStatementAppend },
          );
          const room = await store.ensureDirectRoom({ id: `c-${singleStatementAppend}`, name: 'C' });
          sent.length = 0;
          const first = await store.appendMessage({
            ...message(`a-${singleStatementAppend}`),
            roomId: room.id,
          });
          const count = sent.length;
          const second = await store.appendMessage({
            ...message(`b-${singleStatementAppend}`),
            roomId: room.id,
          });
          expect([first.seq, second.seq]).toEqual([1, 2]);
          expect(await store.listMessages(room.id)).toEqual([first, second]);
          return count;
        };
        expect(await statementsOf(true)).toBe(1);
        expect(await statementsOf(false)).toBe(4);
      } finally {
        await database.close();
      }
    });
  });
}

describe('the kysely store over a database that several instances share', () => {
  const clock = { now: () => Date.parse('2026-11-30T12:00:00Z') };
  const text = (id: string, body = id): NewRoomMessage => ({
    ...message(id),
    content: [{ type: 'text', text: body }],
  });
  const texts = (messages: RoomMessage[]) =>
    messages.map((message) => (message.content[0]?.type === 'text' ? message.content[0].text : '?'));

  const open = async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-history-'));
    const database = openDatabase(path.join(dir, 'hal.db'));
    await migrateToLatest(database.db);
    const store = createKyselyRoomStore(database.db, clock);
    const room = await store.ensureUnifiedRoom();
    // Changes a stored text behind the store's back (no counter moves): only a read of the rows would see it.
    const tamper = (id: string, body: string) =>
      sql`update ai_messages set content_json = ${JSON.stringify([{ type: 'text', text: body }])} where id = ${id}`.execute(
        database.db,
      );
    return {
      database,
      store,
      room,
      tamper,
      async close() {
        await database.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  };

  it('reads what another instance changed in place, even when no counter moved', async () => {
    // Two HAL instances over one database: a turn running on the other one streams into its placeholder and
    // completes it in place (no new seq). A history kept in this process would still show the old text.
    const { database, store, room, tamper, close } = await open();
    try {
      const other = createKyselyRoomStore(database.db, clock);
      for (const id of ['a', 'b']) await store.appendMessage({ ...text(id), roomId: room.id });
      expect(texts(await store.listMessages(room.id, { limit: 10 }))).toEqual(['a', 'b']);
      await other.updateMessage('b', { content: [{ type: 'text', text: 'b, completed elsewhere' }] });
      expect(texts(await store.listMessages(room.id, { limit: 10 }))).toEqual([
        'a',
        'b, completed elsewhere',
      ]);
      await tamper('a', 'changed by hand');
      expect(texts(await store.listMessages(room.id, { limit: 10 }))).toEqual([
        'changed by hand',
        'b, completed elsewhere',
      ]);
      await other.appendMessage({ ...text('c'), roomId: room.id });
      expect(texts(await store.listMessages(room.id, { limit: 2 }))).toEqual(['b, completed elsewhere', 'c']);
    } finally {
      await close();
    }
  });

  it('answers what the rows say after any mix of concurrent writes and reads', async () => {
    const { database, store, room, close } = await open();
    try {
      const work: Array<Promise<unknown>> = [];
      const seen: RoomMessage[][] = [];
      for (let index = 0; index < 60; index += 1) {
        work.push(store.appendMessage({ ...text(`m${index}`), roomId: room.id }));
        if (index % 3 === 0)
          work.push(store.listMessages(room.id, { limit: 20 }).then((list) => seen.push(list)));
        if (index % 5 === 4) {
          work.push(store.updateMessage(`m${index - 2}`, { content: [{ type: 'text', text: `u${index}` }] }));
        }
        if (index % 7 === 0) {
          const other = createKyselyRoomStore(database.db, clock);
          work.push(other.appendMessage({ ...text(`x${index}`), roomId: room.id }));
        }
      }
      await Promise.all(work);
      const fresh = createKyselyRoomStore(database.db, clock);
      const expected = await fresh.listMessages(room.id, { limit: 20 });
      expect(await store.listMessages(room.id, { limit: 20 })).toEqual(expected);
      expect(seen.length).toBeGreaterThan(0);
    } finally {
      await close();
    }
  });
});
