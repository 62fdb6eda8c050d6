import {
  createRoomEventHub,
  type RoomEventHub,
  type RoomEventListener,
  type RoomStore,
  toPublicAction,
} from '@hal-ai/rooms';
import type { RoomEvent } from '@hal-ai/spec';
import type { RoomWriteLog } from './room-write-log.js';
import type { SharedRoomEventHub } from './shared-room-event-hub.js';

/** Settings of {@link createSqliteRoomEventHub}. */
export interface SqliteRoomEventHubSettings {
  /** The store this process writes through, wrapped by `trackRoomWrites` (its `writes` go below). */
  store: Pick<RoomStore, 'listMessages' | 'listActions'>;
  /** Which counter values this process wrote (`trackRoomWrites`). */
  writes: RoomWriteLog;
  /** The current `last_seq` of the given rooms (one query; rooms that are gone are left out). */
  readSequences(roomIds: readonly string[]): Promise<Map<string, number>>;
  /** This process's own hub (default `createRoomEventHub({ bufferSize: 500 })`). */
  local?: RoomEventHub;
  /** Time between two looks at the counters while someone listens (default 100 ms; SPEC §15 asks ≤ 250 ms). */
  intervalMs?: number;
  /** A failed look (the next one tries again). */
  onError?(error: unknown): void;
}

interface Watched {
  /** Subscriptions open on this room (0: not looked at, but where the last look ended is kept). */
  listeners: number;
  /** Counter value up to which the room has been looked at; `undefined` until the first read. */
  seen: number | undefined;
}

/**
 * The SQLite {@link SharedRoomEventHub}: this process's events go to its subscribers at once (the local hub); while at
 * least one subscriber listens, the rooms with subscribers are looked at every `intervalMs` — one indexed read of
 * their `last_seq` — and when a counter moved, the messages and action changes after the last look that THIS process
 * did not write (`RoomWriteLog`) are published to the local subscribers as `message` / `action` events. Nobody
 * listening: no timer, no reads.
 *
 * A room's very first subscriber starts its watch at the counter's value of that moment (read at once): rows stored
 * before are the catch-up route's business (`GET …/messages?after=<seq>`), as for any SSE client. When a room's
 * last subscriber leaves, where the watch ended is kept: the next subscriber (a panel reconnecting with its
 * `Last-Event-ID`) first gets what other processes stored meanwhile.
 *
 * @example
 * const { store, writes } = trackRoomWrites(createKyselyRoomStore(db, clock));
 * const events = createSqliteRoomEventHub({ store, writes, readSequences: readRoomSequences(db) });
 */
export function createSqliteRoomEventHub(settings: SqliteRoomEventHubSettings): SharedRoomEventHub {
  const local = settings.local ?? createRoomEventHub({ bufferSize: 500 });
  const intervalMs = Math.max(10, settings.intervalMs ?? 100);
  const { writes } = settings;
  const watched = new Map<string, Watched>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let looking: Promise<void> | undefined;
  let closed = false;

  const report = (error: unknown) => settings.onError?.(error);

  /** Publishes what other processes stored in one room since the last look. */
  const catchUp = async (roomId: string, room: Watched, lastSeq: number) => {
    const seen = room.seen;
    if (seen === undefined || lastSeq <= seen || writes.writing(roomId)) return;
    const [messages, actions] = await Promise.all([
      settings.store.listMessages(roomId, { afterSeq: seen }),
      settings.store.listActions(roomId, { afterSeq: seen }),
    ]);
    // A write of this process that began while the rows were read may be among them, unrecorded: look again later.
    if (writes.writing(roomId) || room.seen !== seen) return;
    const found: Array<{ seq: number; event: RoomEvent }> = [
      ...messages.map((message) => ({ seq: message.seq, event: { type: 'message', message } as RoomEvent })),
      ...actions.map((action) => ({
        seq: action.changeSeq,
        event: { type: 'action', action: toPublicAction(action) } as RoomEvent,
      })),
    ].sort((a, b) => a.seq - b.seq);
    let top = lastSeq;
    for (const { seq, event } of found) {
      top = Math.max(top, seq);
      if (!writes.wrote(roomId, seq)) local.publish(roomId, event);
    }
    room.seen = top;
    writes.forget(roomId, top);
  };

  const look = async () => {
    const rooms = [...watched].filter(([, room]) => room.listeners > 0).map(([roomId]) => roomId);
    if (rooms.length === 0) return;
    const sequences = await settings.readSequences(rooms);
    await Promise.all(
      rooms.map(async (roomId) => {
        const room = watched.get(roomId);
        const lastSeq = sequences.get(roomId);
        if (!room || lastSeq === undefined) return;
        if (room.seen === undefined) {
          room.seen = lastSeq;
          writes.forget(roomId, lastSeq);
          return;
        }
        await catchUp(roomId, room, lastSeq).catch(report);
      }),
    );
  };
  const tick = () => {
    if (looking || closed) return;
    looking = look()
      .catch(report)
      .finally(() => {
        looking = undefined;
      });
  };
  const listening = () => [...watched.values()].some((room) => room.listeners > 0);
  const follow = (roomId: string) => {
    let room = watched.get(roomId);
    if (!room) {
      room = { listeners: 0, seen: undefined };
      watched.set(roomId, room);
    }
    room.listeners += 1;
    if (closed || room.listeners > 1) return;
    const first = room;
    if (first.seen === undefined) {
      // The watch starts now, not at the next tick: read the counter at once (a failed read is retried by the ticks).
      settings
        .readSequences([roomId])
        .then((sequences) => {
          const lastSeq = sequences.get(roomId);
          if (first.seen !== undefined || lastSeq === undefined) return;
          first.seen = lastSeq;
          writes.forget(roomId, lastSeq);
        })
        .catch(report);
    } else {
      // Watched before: what other processes stored since the last look comes first.
      tick();
    }
    if (!timer) {
      timer = setInterval(tick, intervalMs);
      timer.unref?.();
    }
  };
  const leave = (roomId: string) => {
    const room = watched.get(roomId);
    if (!room || room.listeners === 0) return;
    room.listeners -= 1;
    if (!listening() && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  return {
    publish: (roomId, event) => local.publish(roomId, event),
    subscribe(roomId, options, listener: RoomEventListener) {
      const subscription = local.subscribe(roomId, options, listener);
      follow(roomId);
      let open = true;
      return {
        replayed: subscription.replayed,
        unsubscribe() {
          subscription.unsubscribe();
          if (!open) return;
          open = false;
          leave(roomId);
        },
      };
    },
    resumeFrom: (roomId, afterId) => local.resumeFrom(roomId, afterId),
    lastId: (roomId) => local.lastId(roomId),
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await looking;
    },
  };
}
