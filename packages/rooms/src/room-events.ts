import type { RoomEvent } from '@hal-ai/spec';

/** A published event with its per-room cursor (the SSE `id:`). */
export interface RoomEventEnvelope {
  id: number;
  roomId: string;
  event: RoomEvent;
  /**
   * The SSE `id:` when it is not `id` itself: a hub shared by several processes hands out cursors that mean the same
   * on each of them (and may differ per subscriber). Absent → `String(id)`.
   */
  cursor?: string;
}

/** What {@link RoomEventHub.subscribe} starts from, and whom it tells about lost events. */
export interface RoomEventSubscribeOptions {
  /** A numeric `Last-Event-ID`: buffered events after it are replayed. */
  afterId?: number;
  /**
   * A `Last-Event-ID` that is not a plain number (a shared hub's {@link RoomEventEnvelope.cursor}). A hub that does
   * not know the form replays nothing (`replayed: false`).
   */
  cursor?: string;
  /**
   * Called when the hub learns, after subscribing, that it lost events this subscriber should have had (a shared
   * hub's connection to the other processes dropped): the client must catch up through `messages?after=`.
   */
  onGap?(): void;
}

/** A listener of one room's events. */
export type RoomEventListener = (envelope: RoomEventEnvelope) => void;

/** The outcome of {@link RoomEventHub.resumeFrom}. */
export type RoomEventResume =
  | { ok: true; events: RoomEventEnvelope[] }
  /** The cursor is older than the buffer (or unknown): catch up with `GET messages?after=<seq>`. */
  | { ok: false; reason: 'gap' };

/** A live subscription. */
export interface RoomEventSubscription {
  /** False when `afterId` could not be replayed: the client must catch up through the messages route. */
  replayed: boolean;
  unsubscribe(): void;
}

/**
 * Live room events with replay. An interface so that a multi-instance fan-out (e.g. PostgreSQL
 * LISTEN/NOTIFY) can replace {@link createRoomEventHub} without touching the engine.
 */
export interface RoomEventHub {
  /** Publishes an event to a room's subscribers and buffers it; returns it with its id. */
  publish(roomId: string, event: RoomEvent): RoomEventEnvelope;
  /**
   * Subscribes to a room. With `afterId` (the SSE `Last-Event-ID`), buffered events after it are
   * delivered first (synchronously, before this returns) — or, when the gap is too old,
   * nothing is replayed and `replayed` is false.
   */
  subscribe(
    roomId: string,
    options: RoomEventSubscribeOptions,
    listener: RoomEventListener,
  ): RoomEventSubscription;
  /** The buffered events after `afterId`, or `gap` when some of them are no longer buffered. */
  resumeFrom(roomId: string, afterId: number): RoomEventResume;
  /** The id of the room's latest event (undefined before the first). */
  lastId(roomId: string): number | undefined;
  /**
   * The cursor a client holding every event so far would resume from, when the hub's cursors are not plain numbers
   * (a shared hub); absent → `String(lastId)`.
   */
  lastCursor?(roomId: string): string | undefined;
}

/** Settings of {@link createRoomEventHub}. */
export interface RoomEventHubSettings {
  /** Events kept per room for replay (default 500). */
  bufferSize?: number;
  /**
   * The first id is `firstId + 1` (default: the current time in ms × 1000). Starting from the
   * clock keeps ids increasing across restarts, so a cursor from before a restart is always
   * recognised as a gap instead of silently replaying different events.
   */
  firstId?: number;
  /** Called when a listener throws (the other listeners still get the event). */
  onListenerError?: (error: unknown) => void;
}

interface RoomChannel {
  nextId: number;
  buffer: RoomEventEnvelope[];
  start: number;
  listeners: Set<RoomEventListener>;
}

/**
 * In-process event hub: per-room increasing ids, a bounded ring buffer for replay.
 *
 * @example
 * const events = createRoomEventHub({ bufferSize: 500 });
 * const sub = events.subscribe(roomId, { afterId: lastEventId }, (e) => send(e));
 */
export function createRoomEventHub(settings: RoomEventHubSettings = {}): RoomEventHub {
  const bufferSize = Math.max(1, settings.bufferSize ?? 500);
  const firstId = settings.firstId ?? Date.now() * 1000;
  const channels = new Map<string, RoomChannel>();

  const channel = (roomId: string): RoomChannel => {
    let found = channels.get(roomId);
    if (!found) {
      found = { nextId: firstId + 1, buffer: [], start: 0, listeners: new Set() };
      channels.set(roomId, found);
    }
    return found;
  };
  // The ring in chronological order.
  const ordered = (room: RoomChannel): RoomEventEnvelope[] =>
    room.buffer.length < bufferSize
      ? room.buffer
      : [...room.buffer.slice(room.start), ...room.buffer.slice(0, room.start)];

  const resumeFrom = (roomId: string, afterId: number): RoomEventResume => {
    const room = channel(roomId);
    const events = ordered(room);
    const last = room.nextId - 1;
    if (afterId === last) return { ok: true, events: [] };
    // A cursor from the future (another process, a restart) cannot be trusted.
    if (afterId > last) return { ok: false, reason: 'gap' };
    const oldest = events[0]?.id;
    if (oldest === undefined || afterId < oldest - 1) return { ok: false, reason: 'gap' };
    return { ok: true, events: events.filter((envelope) => envelope.id > afterId) };
  };

  return {
    publish(roomId, event) {
      const room = channel(roomId);
      const envelope: RoomEventEnvelope = { id: room.nextId, roomId, event };
      room.nextId += 1;
      if (room.buffer.length < bufferSize) room.buffer.push(envelope);
      else {
        room.buffer[room.start] = envelope;
        room.start = (room.start + 1) % bufferSize;
      }
      for (const listener of [...room.listeners]) {
        try {
          listener(envelope);
        } catch (error) {
          settings.onListenerError?.(error);
        }
      }
      return envelope;
    },
    subscribe(roomId, options, listener) {
      const room = channel(roomId);
      // A cursor of a shared hub means nothing here: the client catches up instead.
      let replayed = options.cursor === undefined || options.afterId !== undefined;
      if (options.afterId !== undefined) {
        const resume = resumeFrom(roomId, options.afterId);
        if (resume.ok) for (const envelope of resume.events) listener(envelope);
        else replayed = false;
      }
      room.listeners.add(listener);
      return {
        replayed,
        unsubscribe: () => {
          room.listeners.delete(listener);
        },
      };
    },
    resumeFrom,
    lastId(roomId) {
      const room = channels.get(roomId);
      return room && room.nextId > firstId + 1 ? room.nextId - 1 : undefined;
    },
  };
}
