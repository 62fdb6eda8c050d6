import { randomUUID } from 'node:crypto';
import type { RoomEventEnvelope } from '@hal-ai/rooms';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createPostgresTestDatabase,
  describePostgres,
  type PostgresTestDatabase,
} from '../../platform/db/database-postgres.test-support.js';
import { createPostgresRoomEventHub, type PostgresRoomEventHub } from './postgres-room-event-hub.js';
import {
  encodeRoomSignal,
  parseRoomSignal,
  ROOM_SIGNALS_CHANNEL,
  type RoomSignal,
} from './postgres-room-signals.js';

describe('room signals as they cross', () => {
  it('read back what was sent, for a room and for a connection', () => {
    for (const signal of [
      { type: 'stop_turns', scope: { roomId: 'room_1' } },
      { type: 'stop_turns', scope: { connectionId: 'conn_1' } },
    ] satisfies RoomSignal[]) {
      expect(parseRoomSignal(encodeRoomSignal('k3x9a00000', signal))).toEqual({
        origin: 'k3x9a00000',
        signal,
      });
    }
  });

  it('refuse anything else: other types, both scopes or none, non-strings, not JSON', () => {
    for (const payload of [
      'not json',
      'null',
      '[]',
      JSON.stringify({ origin: 'o', type: 'reset_everything', roomId: 'r' }),
      JSON.stringify({ origin: 'o', type: 'stop_turns' }),
      JSON.stringify({ origin: 'o', type: 'stop_turns', roomId: 'r', connectionId: 'c' }),
      JSON.stringify({ origin: 'o', type: 'stop_turns', roomId: 7 }),
      JSON.stringify({ origin: '', type: 'stop_turns', roomId: 'r' }),
      JSON.stringify({ type: 'stop_turns', roomId: 'r' }),
      JSON.stringify({ origin: 'o', type: 'stop_turns', roomId: 'r'.repeat(201) }),
    ]) {
      expect(parseRoomSignal(payload), payload).toBeUndefined();
    }
  });
});

/** Resolves once `check` holds (every poll re-reads it): the other instance's notifications arrive asynchronously. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never happened: ${what}`);
}

describePostgres('room signals between instances', () => {
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

  it('reach the other instances, never the sender, never a panel; a malformed one is dropped', async () => {
    const [a, b, c] = [await instance('a'), await instance('b'), await instance('c')];
    const seen: Record<string, RoomSignal[]> = { a: [], b: [], c: [] };
    a.onSignal((signal) => seen.a?.push(signal));
    b.onSignal((signal) => seen.b?.push(signal));
    const stopListening = c.onSignal((signal) => seen.c?.push(signal));
    const panel: RoomEventEnvelope[] = [];
    b.subscribe('room_1', {}, (envelope) => panel.push(envelope));

    // A forged payload on the channel first (anyone with the database may NOTIFY): ignored, the next one arrives.
    const raw = new pg.Client({ connectionString: database.url });
    await raw.connect();
    await raw.query('SELECT pg_notify($1, $2)', [ROOM_SIGNALS_CHANNEL, '{"type":"stop_turns"}']);
    await raw.end();
    await a.signal({ type: 'stop_turns', scope: { roomId: 'room_1' } });
    await until(() => seen.b?.length === 1 && seen.c?.length === 1, 'the signal on B and C');
    expect(seen.b).toEqual([{ type: 'stop_turns', scope: { roomId: 'room_1' } }]);
    expect(seen.c).toEqual(seen.b);

    stopListening();
    await b.signal({ type: 'stop_turns', scope: { connectionId: 'conn_1' } });
    await until(() => seen.a?.length === 1, 'the second signal on A');
    expect(seen.a).toEqual([{ type: 'stop_turns', scope: { connectionId: 'conn_1' } }]);
    // A room event after both signals reaches B's panel, and it is the only thing the panel got.
    a.publish('room_1', { type: 'turn', turnId: 't1', connectionId: 'c1', status: 'cancelled' });
    await until(() => panel.length === 1, 'the room event on B');
    expect(panel.map((envelope) => envelope.event.type)).toEqual(['turn']);
    // The sender never hears itself; C stopped listening.
    expect(seen.b).toHaveLength(1);
    expect(seen.c).toHaveLength(1);
  });
});
