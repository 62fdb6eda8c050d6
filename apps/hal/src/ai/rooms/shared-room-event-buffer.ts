import type {
  RoomEventEnvelope,
  RoomEventListener,
  RoomEventResume,
  RoomEventSubscribeOptions,
  RoomEventSubscription,
} from '@hal-ai/rooms';
import type { RoomEvent } from '@hal-ai/spec';
import type { SharedRoomEventHub } from './shared-room-event-hub.js';

/**
 * Where a client is in a room's stream of a shared hub: for each origin (the process that published), the highest
 * sequence number of its events in that room the client has had. Every origin numbers its events per room 1, 2, 3, …
 * and every process receives one origin's events in that order, so "had up to n" means "had 1…n".
 */
export type RoomEventVector = ReadonlyMap<string, number>;

/** Most origins a cursor names (the most recently active ones); a cursor naming this many is "full". */
export const CURSOR_MAX_ORIGINS = 16;

const ORIGIN = /^[0-9a-z]{1,16}$/;
const CURSOR = /^[0-9a-z]{1,16}:\d{1,15}(,[0-9a-z]{1,16}:\d{1,15}){0,15}$/;

/** Whether `origin` may name a process in cursors (1–16 of `0-9a-z`). */
export function isRoomEventOrigin(origin: string): boolean {
  return ORIGIN.test(origin);
}

/** The SSE id of a vector: `origin:seq` pairs, sorted by origin, comma-separated (`k3x9a:17,p0q2z:5`). */
export function formatRoomEventCursor(vector: RoomEventVector): string {
  return [...vector]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([origin, seq]) => `${origin}:${seq}`)
    .join(',');
}

/** The vector of a cursor made by {@link formatRoomEventCursor}; `undefined` for anything else. */
export function parseRoomEventCursor(text: string): Map<string, number> | undefined {
  const trimmed = text.trim();
  if (!CURSOR.test(trimmed)) return undefined;
  const vector = new Map<string, number>();
  for (const pair of trimmed.split(',')) {
    const [origin, seq] = pair.split(':') as [string, string];
    if (vector.has(origin)) return undefined;
    vector.set(origin, Number(seq));
  }
  return vector;
}

/** Settings of {@link createSharedRoomEventBuffer}. */
export interface SharedRoomEventBufferSettings {
  /** This process's origin (1–16 of `0-9a-z`, unique among the processes on the database). */
  origin: string;
  /** Events kept per room for replay, local and remote together (default 500). */
  bufferSize?: number;
  /** Local ids start after this (default: the clock in ms × 1000, as `createRoomEventHub`). */
  firstId?: number;
  /** A listener threw (the others still get the event). */
  onListenerError?(error: unknown): void;
}

/** What one origin has delivered in one room, as this process knows it. */
interface OriginState {
  /** Highest sequence number delivered here. */
  delivered: number;
  /** From this sequence number on, every event up to `delivered` reached this process (a hole moves it). */
  from: number;
  /** Notifications may have been lost (the listening connection dropped) and no event has shown since whether. */
  suspect: boolean;
  /** Local id of its latest event here (which origins a full cursor keeps). */
  lastId: number;
}

interface Entry {
  envelope: RoomEventEnvelope;
  origin: string;
  seq: number;
  /** The room's vector right after this event. */
  vector: RoomEventVector;
}

interface Subscriber {
  listener: RoomEventListener;
  onGap: (() => void) | undefined;
  /**
   * What the client had that this process had not yet received when it subscribed (it came from another process):
   * those events are skipped when they arrive, and its cursors include them until this process caught up.
   */
  ahead: Map<string, number> | undefined;
}

interface RoomState {
  nextId: number;
  ring: Entry[];
  start: number;
  /** Sequence number of this process's next event in the room. */
  nextSeq: number;
  origins: Map<string, OriginState>;
  vector: RoomEventVector;
  cursor: string | undefined;
  subscribers: Set<Subscriber>;
}

/** The receiving side of a shared hub: events other processes sent, as they arrive. */
export interface SharedRoomEventBuffer extends Omit<SharedRoomEventHub, 'close'> {
  /** {@link SharedRoomEventHub.publish}, also saying which of this process's events in the room it is (1, 2, …). */
  publishOwn(roomId: string, event: RoomEvent): { envelope: RoomEventEnvelope; seq: number };
  /** Delivers another process's event (`origin`'s `seq`-th in the room); repeats and this process's own are ignored. */
  receive(roomId: string, origin: string, seq: number, event: RoomEvent): void;
  /**
   * Events of other processes may have been lost (the listening connection dropped): every subscriber is told
   * (`onGap`), and resuming past what this process last had of another origin answers `gap` until that origin's
   * next event shows nothing was missed.
   */
  lost(): void;
}

const merged = (a: RoomEventVector, b: RoomEventVector): Map<string, number> => {
  const out = new Map(a);
  for (const [origin, seq] of b) if ((out.get(origin) ?? 0) < seq) out.set(origin, seq);
  return out;
};

/**
 * The ring buffer and cursors of a hub shared by several processes (the PostgreSQL hub's memory; its transport sends
 * and receives). Each room keeps its last `bufferSize` events, this process's and the others', in the order they
 * reached this process, each with the room's vector right after it.
 *
 * Cursors (SSE ids) are vectors, so they mean the same on every process: a client that read process A up to cursor
 * V and reconnects to process B gets from B's buffer exactly the events whose sequence number is above V's for their
 * origin — in B's order, without loss or repeats — and the cursors B gives it are V merged with B's vectors. When B
 * cannot know that (events the client lacks are no longer or never were in B's buffer, an origin B has not heard of
 * in that room, a full cursor that left out an origin B has, lost notifications) `replayed` is false and the client
 * catches up through `messages?after=`, as for any stale cursor.
 *
 * @example
 * const buffer = createSharedRoomEventBuffer({ origin: 'k3x9a' });
 * buffer.publish(roomId, event); // this process's: seq 1, 2, … per room
 * buffer.receive(roomId, 'p0q2z', 7, event); // another process's
 */
export function createSharedRoomEventBuffer(settings: SharedRoomEventBufferSettings): SharedRoomEventBuffer {
  const { origin: self } = settings;
  if (!isRoomEventOrigin(self)) throw new Error(`origin must be 1-16 of 0-9a-z, got ${self}`);
  const bufferSize = Math.max(1, settings.bufferSize ?? 500);
  const firstId = settings.firstId ?? Date.now() * 1000;
  const rooms = new Map<string, RoomState>();

  const room = (roomId: string): RoomState => {
    let found = rooms.get(roomId);
    if (!found) {
      found = {
        nextId: firstId + 1,
        ring: [],
        start: 0,
        nextSeq: 1,
        origins: new Map(),
        vector: new Map(),
        cursor: undefined,
        subscribers: new Set(),
      };
      rooms.set(roomId, found);
    }
    return found;
  };
  const ordered = (state: RoomState): Entry[] =>
    state.ring.length < bufferSize
      ? state.ring
      : [...state.ring.slice(state.start), ...state.ring.slice(0, state.start)];

  /** A cursor names at most {@link CURSOR_MAX_ORIGINS} origins: the most recently active ones. */
  const cursorOf = (state: RoomState, vector: RoomEventVector): string => {
    if (vector.size <= CURSOR_MAX_ORIGINS) return formatRoomEventCursor(vector);
    const recent = [...vector]
      .sort(([a], [b]) => (state.origins.get(b)?.lastId ?? 0) - (state.origins.get(a)?.lastId ?? 0))
      .slice(0, CURSOR_MAX_ORIGINS);
    return formatRoomEventCursor(new Map(recent));
  };

  const call = (listener: RoomEventListener, envelope: RoomEventEnvelope) => {
    try {
      listener(envelope);
    } catch (error) {
      settings.onListenerError?.(error);
    }
  };

  const gap = (subscriber: Subscriber) => {
    try {
      subscriber.onGap?.();
    } catch (error) {
      settings.onListenerError?.(error);
    }
  };

  const deliver = (roomId: string, state: RoomState, origin: string, seq: number, event: RoomEvent) => {
    const id = state.nextId;
    state.nextId += 1;
    const known = state.origins.get(origin);
    if (known) {
      known.delivered = seq;
      known.lastId = id;
    } else state.origins.set(origin, { delivered: seq, from: seq, suspect: false, lastId: id });
    const vector = new Map(state.vector).set(origin, seq);
    state.vector = vector;
    state.cursor = cursorOf(state, vector);
    const envelope: RoomEventEnvelope = { id, roomId, event, cursor: state.cursor };
    const entry: Entry = { envelope, origin, seq, vector };
    if (state.ring.length < bufferSize) state.ring.push(entry);
    else {
      const evicted = state.ring[state.start] as Entry;
      const evictedOrigin = state.origins.get(evicted.origin);
      if (evictedOrigin) evictedOrigin.from = Math.max(evictedOrigin.from, evicted.seq + 1);
      state.ring[state.start] = entry;
      state.start = (state.start + 1) % bufferSize;
    }
    for (const subscriber of [...state.subscribers]) {
      const { ahead } = subscriber;
      if (!ahead) {
        call(subscriber.listener, envelope);
        continue;
      }
      const had = ahead.get(origin);
      if (had !== undefined && seq >= had) ahead.delete(origin);
      const own = ahead.size === 0 ? undefined : cursorOf(state, merged(vector, ahead));
      if (own === undefined) subscriber.ahead = undefined;
      // The client had it from the process it read before.
      if (had !== undefined && seq <= had) continue;
      call(subscriber.listener, own === undefined ? envelope : { ...envelope, cursor: own });
    }
    return envelope;
  };

  /** The events after `after` for a subscriber, or undefined when this process cannot know them all. */
  const replayFor = (state: RoomState, after: RoomEventVector): RoomEventEnvelope[] | undefined => {
    // A full cursor may have left out an origin this process has: nothing can be said about that one.
    const full = after.size >= CURSOR_MAX_ORIGINS;
    for (const [origin, known] of state.origins) {
      const had = after.get(origin);
      // Lost notifications: what the client lacks of this origin may never arrive.
      if ((had === undefined && full) || known.suspect) return undefined;
      const since = had ?? 0;
      // Beyond what this process has, the client's events are skipped when they arrive (`ahead`).
      if (since < known.delivered && since + 1 < known.from) return undefined;
    }
    // An origin this process has not heard of in the room: its events may have come before this process listened.
    for (const origin of after.keys()) if (!state.origins.has(origin)) return undefined;
    const events: RoomEventEnvelope[] = [];
    for (const entry of ordered(state)) {
      if (entry.seq <= (after.get(entry.origin) ?? 0)) continue;
      events.push({ ...entry.envelope, cursor: cursorOf(state, merged(entry.vector, after)) });
    }
    return events;
  };

  const resumeFrom = (roomId: string, afterId: number): RoomEventResume => {
    const state = room(roomId);
    const last = state.nextId - 1;
    if (afterId === last) return { ok: true, events: [] };
    const events = ordered(state);
    const oldest = events[0]?.envelope.id;
    if (afterId > last || oldest === undefined || afterId < oldest - 1) return { ok: false, reason: 'gap' };
    return {
      ok: true,
      events: events.filter((entry) => entry.envelope.id > afterId).map((entry) => entry.envelope),
    };
  };

  const publishOwn = (roomId: string, event: RoomEvent) => {
    const state = room(roomId);
    const seq = state.nextSeq;
    state.nextSeq += 1;
    return { envelope: deliver(roomId, state, self, seq, event), seq };
  };

  return {
    publishOwn,
    publish: (roomId, event) => publishOwn(roomId, event).envelope,
    receive(roomId, origin, seq, event) {
      if (origin === self || !isRoomEventOrigin(origin) || !Number.isSafeInteger(seq) || seq < 1) return;
      const state = room(roomId);
      const known = state.origins.get(origin);
      if (known && seq <= known.delivered) return;
      if (known && seq !== known.delivered + 1) {
        // A hole: the events between were lost. Whoever follows the room lacks them.
        known.from = seq;
        for (const subscriber of [...state.subscribers]) gap(subscriber);
      }
      if (known) known.suspect = false;
      deliver(roomId, state, origin, seq, event);
    },
    lost() {
      for (const state of rooms.values()) {
        for (const [origin, known] of state.origins) if (origin !== self) known.suspect = true;
        for (const subscriber of [...state.subscribers]) gap(subscriber);
      }
    },
    subscribe(roomId, options: RoomEventSubscribeOptions, listener) {
      const state = room(roomId);
      const subscriber: Subscriber = { listener, onGap: options.onGap, ahead: undefined };
      let replayed = true;
      if (options.cursor !== undefined) {
        const after = parseRoomEventCursor(options.cursor);
        const events = after ? replayFor(state, after) : undefined;
        if (after && events) {
          for (const envelope of events) call(listener, envelope);
          const ahead = new Map(
            [...after].filter(([origin, seq]) => seq > (state.origins.get(origin)?.delivered ?? 0)),
          );
          if (ahead.size > 0) subscriber.ahead = ahead;
        } else replayed = false;
      } else if (options.afterId !== undefined) {
        const resume = resumeFrom(roomId, options.afterId);
        if (resume.ok) for (const envelope of resume.events) call(listener, envelope);
        else replayed = false;
      }
      state.subscribers.add(subscriber);
      return {
        replayed,
        unsubscribe: () => {
          state.subscribers.delete(subscriber);
        },
      } satisfies RoomEventSubscription;
    },
    resumeFrom,
    lastId(roomId) {
      const state = rooms.get(roomId);
      return state && state.nextId > firstId + 1 ? state.nextId - 1 : undefined;
    },
    lastCursor: (roomId) => rooms.get(roomId)?.cursor,
  };
}
