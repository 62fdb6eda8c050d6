import type { RoomStore } from '@hal-ai/rooms';

/**
 * Which of a room's counter values (`seq` of messages, `changeSeq` of actions) THIS process wrote, so a watcher of
 * the shared database can tell another process's rows (`hal mcp`, another instance) from its own, whose events the
 * engine publishes itself (and possibly later: events wait for the dispatch line).
 *
 * Why it is exact: a write is marked as under way before its query runs and its value is recorded before the mark is
 * lifted. A row the watcher read is therefore either recorded, or its write is still under way when the watcher looks
 * (then the watcher waits for its next round), or it is another process's.
 */
export interface RoomWriteLog {
  /** True while a write of this process that moves the room's counter is under way. */
  writing(roomId: string): boolean;
  /** True when this process wrote counter value `seq` of the room (and it was not forgotten since). */
  wrote(roomId: string, seq: number): boolean;
  /** Forgets the room's values up to `seq` (a watcher has passed them). */
  forget(roomId: string, seq: number): void;
}

/**
 * A room's recorded values as sorted, disjoint, non-adjacent `[first, last]` ranges: this process's writes are
 * mostly consecutive, so the record stays a handful of numbers however long nobody watches the room.
 */
type Ranges = Array<[number, number]>;

function addValue(ranges: Ranges, value: number): void {
  let index = ranges.findIndex(([, last]) => last >= value - 1);
  if (index < 0) index = ranges.length;
  const range = ranges[index];
  if (range && range[0] <= value + 1) {
    range[0] = Math.min(range[0], value);
    range[1] = Math.max(range[1], value);
    const next = ranges[index + 1];
    if (next && next[0] <= range[1] + 1) {
      range[1] = Math.max(range[1], next[1]);
      ranges.splice(index + 1, 1);
    }
  } else {
    ranges.splice(index, 0, [value, value]);
  }
}

/**
 * Wraps a room store so that every write that moves a room's counter goes through a {@link RoomWriteLog}. Reads and
 * the other writes pass through unchanged.
 *
 * @example
 * const { store, writes } = trackRoomWrites(createKyselyRoomStore(db, clock));
 */
export function trackRoomWrites(inner: RoomStore): { store: RoomStore; writes: RoomWriteLog } {
  const underWay = new Map<string, number>();
  // A transition names only its action: until it returns, its room is unknown, so it counts for every room.
  let unknownRoom = 0;
  const recorded = new Map<string, Ranges>();

  const begin = (roomId: string | null) => {
    if (roomId === null) unknownRoom += 1;
    else underWay.set(roomId, (underWay.get(roomId) ?? 0) + 1);
    return () => {
      if (roomId === null) unknownRoom -= 1;
      else {
        const left = (underWay.get(roomId) ?? 1) - 1;
        if (left <= 0) underWay.delete(roomId);
        else underWay.set(roomId, left);
      }
    };
  };
  const record = (roomId: string, seq: number) => {
    let ranges = recorded.get(roomId);
    if (!ranges) {
      ranges = [];
      recorded.set(roomId, ranges);
    }
    addValue(ranges, seq);
  };
  const tracked = async <T>(
    roomId: string | null,
    work: () => Promise<T>,
    values: (result: T) => Array<[string, number]>,
  ): Promise<T> => {
    const end = begin(roomId);
    try {
      const result = await work();
      for (const [room, seq] of values(result)) record(room, seq);
      return result;
    } finally {
      end();
    }
  };

  const store: RoomStore = Object.create(inner, {
    appendMessage: {
      value: (input: Parameters<RoomStore['appendMessage']>[0]) =>
        tracked(
          input.roomId,
          () => inner.appendMessage(input),
          (message) => [[message.roomId, message.seq]],
        ),
    },
    createAction: {
      value: (input: Parameters<RoomStore['createAction']>[0]) =>
        tracked(
          input.roomId,
          () => inner.createAction(input),
          (action) => [[action.roomId, action.changeSeq]],
        ),
    },
    transitionAction: {
      value: (...args: Parameters<RoomStore['transitionAction']>) =>
        tracked(
          null,
          () => inner.transitionAction(...args),
          (action) => (action ? [[action.roomId, action.changeSeq]] : []),
        ),
    },
    cancelPendingActions: {
      value: (roomId: string, at: string) =>
        tracked(
          roomId,
          () => inner.cancelPendingActions(roomId, at),
          (actions) => actions.map((action): [string, number] => [action.roomId, action.changeSeq]),
        ),
    },
  });

  const writes: RoomWriteLog = {
    writing: (roomId) => unknownRoom > 0 || (underWay.get(roomId) ?? 0) > 0,
    wrote: (roomId, seq) =>
      recorded.get(roomId)?.some(([first, last]) => first <= seq && seq <= last) ?? false,
    forget(roomId, seq) {
      const ranges = recorded.get(roomId);
      if (!ranges) return;
      while (ranges[0] && ranges[0][1] <= seq) ranges.shift();
      if (ranges[0] && ranges[0][0] <= seq) ranges[0][0] = seq + 1;
      if (ranges.length === 0) recorded.delete(roomId);
    },
  };
  return { store, writes };
}
