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
  /** True when this process wrote counter value `seq` of the room (recorded for watched rooms only). */
  wrote(roomId: string, seq: number): boolean;
  /** Starts recording the room's values (a watcher began to follow it). */
  watch(roomId: string): void;
  /** Stops recording and forgets the room's values. */
  unwatch(roomId: string): void;
  /** Forgets the room's values up to `seq` (the watcher has passed them). */
  forget(roomId: string, seq: number): void;
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
  const recorded = new Map<string, Set<number>>();

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
  const record = (roomId: string, seq: number) => recorded.get(roomId)?.add(seq);
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
    wrote: (roomId, seq) => recorded.get(roomId)?.has(seq) ?? false,
    watch(roomId) {
      if (!recorded.has(roomId)) recorded.set(roomId, new Set());
    },
    unwatch(roomId) {
      recorded.delete(roomId);
    },
    forget(roomId, seq) {
      const values = recorded.get(roomId);
      if (!values) return;
      for (const value of values) if (value <= seq) values.delete(value);
    },
  };
  return { store, writes };
}
