import { randomUUID } from 'node:crypto';
import type { RoomEventEnvelope } from '@hal-ai/rooms';
import type { RoomEvent, RoomMessage } from '@hal-ai/spec';
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  createPostgresTestDatabase,
  describePostgres,
  type PostgresTestDatabase,
} from '../../platform/db/database-postgres.test-support.js';
import {
  createPostgresRoomEventHub,
  type PostgresRoomEventHub,
  ROOM_EVENTS_CHANNEL,
  roomEventOrigin,
} from './postgres-room-event-hub.js';

const delta = (text: string): RoomEvent => ({ type: 'delta', messageId: 'm1', connectionId: 'c1', text });

const message = (text: string): RoomMessage => ({
  id: `msg_${randomUUID()}`,
  roomId: 'room_1',
  seq: 3,
  role: 'assistant',
  connectionId: 'c1',
  model: 'fake-model',
  content: [{ type: 'text', text }],
  status: 'complete',
  error: null,
  relayDepth: 0,
  relayedFrom: null,
  usage: null,
  createdAt: new Date(0).toISOString(),
});

/** Resolves once `check` holds (every poll re-reads it): the other instance's events arrive asynchronously. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never happened: ${what}`);
}

describePostgres('createPostgresRoomEventHub', () => {
  let database: PostgresTestDatabase;
  let pools: pg.Pool[];
  let hubs: PostgresRoomEventHub[];

  beforeEach(async () => {
    database = await createPostgresTestDatabase();
    pools = [];
    hubs = [];
  });
  afterEach(async () => {
    await Promise.all(hubs.map((hub) => hub.close()));
    await Promise.all(pools.map((pool) => pool.end()));
    await database.drop();
  });

  const instance = async (name: string) => {
    const pool = new pg.Pool({ connectionString: database.url, max: 3 });
    pools.push(pool);
    const hub = createPostgresRoomEventHub({ pool, instanceId: `inst_${name}_${randomUUID()}`, retryMs: 20 });
    hubs.push(hub);
    await hub.ready();
    return hub;
  };

  it('delivers an event to its own subscribers at once and to the other instance through NOTIFY, in order', async () => {
    const a = await instance('a');
    const b = await instance('b');
    expect(a.origin).not.toBe(b.origin);
    const onA: RoomEventEnvelope[] = [];
    const onB: RoomEventEnvelope[] = [];
    a.subscribe('room_1', {}, (envelope) => onA.push(envelope));
    b.subscribe('room_1', {}, (envelope) => onB.push(envelope));
    const events: RoomEvent[] = [
      { type: 'turn', turnId: 't1', connectionId: 'c1', status: 'running' },
      ...Array.from({ length: 300 }, (_, index) => delta(`${index} `)),
      { type: 'message', message: message('done') },
      { type: 'turn', turnId: 't1', connectionId: 'c1', status: 'complete' },
    ];
    for (const event of events) a.publish('room_1', event);
    expect(onA.map((envelope) => envelope.event)).toEqual(events);
    await until(() => onB.length === events.length, 'all events on B');
    expect(onB.map((envelope) => envelope.event)).toEqual(events);
    // The same cursors on both: one origin's events in the same order.
    expect(onB.map((envelope) => envelope.cursor)).toEqual(onA.map((envelope) => envelope.cursor));
    expect(onB.at(-1)?.cursor).toBe(`${a.origin}:${events.length}`);
  });

  it('carries an event far over the 8000-byte NOTIFY limit intact', async () => {
    const a = await instance('a');
    const b = await instance('b');
    const onB: RoomEventEnvelope[] = [];
    b.subscribe('room_1', {}, (envelope) => onB.push(envelope));
    const big: RoomEvent = { type: 'message', message: message(`큰 결과 😀 ${'가나다라'.repeat(20_000)}`) };
    a.publish('room_1', big);
    a.publish('room_1', delta('after'));
    await until(() => onB.length === 2, 'both events on B');
    expect(onB[0]?.event).toEqual(big);
    expect(onB[1]?.event).toEqual(delta('after'));
  });

  it('resumes on B a client that read A, from the cursor A gave it', async () => {
    const a = await instance('a');
    const b = await instance('b');
    const onA: RoomEventEnvelope[] = [];
    const reader = a.subscribe('room_1', {}, (envelope) => onA.push(envelope));
    a.publish('room_1', delta('one'));
    b.publish('room_1', delta('two'));
    await until(() => onA.length === 2, 'B’s event on A');
    reader.unsubscribe();
    const cursor = onA.at(-1)?.cursor as string;
    a.publish('room_1', delta('three'));
    b.publish('room_1', delta('four'));
    await until(
      () => b.lastCursor?.('room_1') === `${a.origin}:2,${b.origin}:2`.split(',').sort().join(','),
      'B has all',
    );
    const onB: RoomEventEnvelope[] = [];
    const resumed = b.subscribe('room_1', { cursor }, (envelope) => onB.push(envelope));
    expect(resumed.replayed).toBe(true);
    // In B's order (its own `four` came first there), each once.
    expect(onB.map((envelope) => envelope.event)).toEqual([delta('four'), delta('three')]);
  });

  it('listens again when its connection is cut, tells its subscribers to catch up, and goes on receiving', async () => {
    const a = await instance('a');
    const b = await instance('b');
    const onB: string[] = [];
    let gaps = 0;
    b.subscribe('room_1', { onGap: () => (gaps += 1) }, ({ event }) => {
      if (event.type === 'delta') onB.push(event.text);
    });
    a.publish('room_1', delta('before'));
    await until(() => onB.length === 1, 'first event on B');
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      // Both listening backends go (A's and B's): each hub must notice and listen again.
      const { rowCount } = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND query = $1`,
        [`LISTEN ${ROOM_EVENTS_CHANNEL}`],
      );
      expect(rowCount).toBe(2);
    } finally {
      await admin.end();
    }
    await until(() => gaps === 1, 'B tells its subscriber');
    a.publish('room_1', delta('after'));
    await until(() => onB.length === 2, 'events after the cut');
    expect(onB).toEqual(['before', 'after']);
  });

  it('sends what was published before close, then stops listening; a connection string gets a pool of its own', async () => {
    const b = await instance('b');
    const onB: string[] = [];
    b.subscribe('room_1', {}, ({ event }) => {
      if (event.type === 'delta') onB.push(event.text);
    });
    const a = createPostgresRoomEventHub({ connectionString: database.url, instanceId: 'inst_own_pool' });
    await a.ready();
    expect(a.origin).toBe(roomEventOrigin('inst_own_pool'));
    for (let index = 0; index < 50; index += 1) a.publish('room_1', delta(String(index)));
    await a.close();
    await until(() => onB.length === 50, 'all 50 on B');
    // Local publishing still works after close (the engine may finish a turn while HAL stops).
    expect(a.publish('room_1', delta('late')).event).toEqual(delta('late'));
  });
});
