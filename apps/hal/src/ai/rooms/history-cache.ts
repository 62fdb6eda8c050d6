import type { RoomMessage } from '@hal-ai/spec';

/**
 * The last messages of recently used rooms, kept in memory by the kysely room store. Every model call reads its
 * room's history, and reading and parsing those rows was a large share of the work before a request could leave.
 *
 * When a copy can be trusted:
 * - Every append, proposal and decision bumps the room's `last_seq`, whether this process or another (`hal mcp`)
 *   wrote it. A copy is only used while the room's `last_seq` is still the one it was read or patched at.
 * - Messages are changed in place only by turns, which run in `hal serve`, through the same store. The store
 *   patches the copy after each such update.
 * - While any write of this store is under way, copies are neither used nor filled. A read that overlapped a write
 *   is not kept either, so a copy never misses a write that finished after its rows were read.
 */
export interface HistoryCache {
  /** Marks a write as under way. Call the returned function once it has ended, whether it succeeded or failed. */
  beginWrite(): () => void;
  /** The history of `roomId` if a copy is current for this `last_seq` and limit (a new array each time). */
  get(roomId: string, lastSeq: number, limit: number): RoomMessage[] | undefined;
  /** Starts a read from the database. The function it returns tells whether that read may be kept. */
  beginRead(): () => boolean;
  /** Keeps `messages`: the last `limit` messages of the room, read while its `last_seq` was `lastSeq`. */
  set(roomId: string, lastSeq: number, limit: number, messages: RoomMessage[]): void;
  /** A message was stored with the next `seq`: the copy follows it, or is dropped if it missed one. */
  appended(message: RoomMessage): void;
  /** A message changed in place. */
  updated(message: RoomMessage): void;
  /** Drops the copy of one room, or of all. */
  drop(roomId?: string): void;
}

interface Entry {
  lastSeq: number;
  limit: number;
  messages: RoomMessage[];
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

/**
 * Creates an empty cache of at most `maxRooms` rooms (least recently used out). Messages in it are frozen: a
 * caller that changed one would change every later read.
 */
export function createHistoryCache(maxRooms = 256): HistoryCache {
  const entries = new Map<string, Entry>();
  let writing = 0;
  // Moves at every start and end of a write: a read that sees it unchanged overlapped none.
  let generation = 0;

  const touch = (roomId: string, entry: Entry) => {
    entries.delete(roomId);
    entries.set(roomId, entry);
    for (const oldest of entries.keys()) {
      if (entries.size <= maxRooms) break;
      entries.delete(oldest);
    }
  };

  return {
    beginWrite() {
      writing += 1;
      generation += 1;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        writing -= 1;
        generation += 1;
      };
    },
    get(roomId, lastSeq, limit) {
      if (writing > 0) return undefined;
      const entry = entries.get(roomId);
      if (!entry || entry.lastSeq !== lastSeq || entry.limit !== limit) return undefined;
      touch(roomId, entry);
      return entry.messages.slice();
    },
    beginRead() {
      const started = generation;
      return () => writing === 0 && generation === started;
    },
    set(roomId, lastSeq, limit, messages) {
      touch(roomId, { lastSeq, limit, messages: messages.map(deepFreeze) });
    },
    appended(message) {
      const entry = entries.get(message.roomId);
      if (!entry) return;
      if (message.seq !== entry.lastSeq + 1) {
        entries.delete(message.roomId);
        return;
      }
      entry.lastSeq = message.seq;
      entry.messages.push(deepFreeze(message));
      if (entry.messages.length > entry.limit) entry.messages.shift();
    },
    updated(message) {
      const entry = entries.get(message.roomId);
      if (!entry) return;
      const index = entry.messages.findIndex((cached) => cached.id === message.id);
      if (index >= 0) entry.messages[index] = deepFreeze(message);
    },
    drop(roomId) {
      if (roomId === undefined) entries.clear();
      else entries.delete(roomId);
    },
  };
}
