/**
 * The engine's writes, each stored and then announced: messages and HAL notes, turns and their status, action
 * changes. Every part of the engine writes through here, so a row and its live event can never disagree, and a
 * reset can wait for what a room still has in flight.
 */
import type { ContentBlock, ErrorInfo, RoomEvent, RoomMessage, RoomNote, TurnStatus } from '@hal-ai/spec';
import type { RoomEventHub } from './room-events.js';
import { noteText } from './room-notes.js';
import {
  type ActionRecord,
  type NewRoomMessage,
  type RoomStore,
  type TurnRecord,
  toPublicAction,
} from './room-store.js';

/** Settings of {@link createRoomWriter}. */
export interface RoomWriterSettings {
  store: RoomStore;
  events: RoomEventHub;
  clock: () => Date;
  newId: () => string;
}

/** A message to append: the writer fills in `id` (unless given) and `createdAt`. */
export type RoomMessageInput = Omit<NewRoomMessage, 'id' | 'createdAt'> & { id?: string };

/** Stores and announces the engine's rows (see the module comment). */
export interface RoomWriter {
  /** The clock as an ISO string. */
  now(): string;
  newId(): string;
  publish(roomId: string, event: RoomEvent): void;
  /** Publishes an action's current state. */
  announceAction(record: ActionRecord): void;
  appendMessage(input: RoomMessageInput): Promise<RoomMessage>;
  /**
   * A HAL note (`system` message): its code and params, with their English text, and optional extra blocks (e.g.
   * an action card).
   */
  appendNote(roomId: string, note: RoomNote, extra?: ContentBlock[]): Promise<RoomMessage>;
  /** Stores a new turn (status `running`) and announces it. */
  createTurn(record: TurnRecord): Promise<TurnRecord>;
  setTurnStatus(turn: TurnRecord, status: TurnStatus, error?: ErrorInfo | null): Promise<void>;
  /** Counts other writes of a room (e.g. a post's rows) among those {@link RoomWriter.settled} waits for. */
  trackWrite<T>(roomId: string, write: Promise<T>): Promise<T>;
  /** Resolves once every message write of the room that had started has settled. */
  settled(roomId: string): Promise<void>;
}

/** Creates the engine's {@link RoomWriter}. */
export function createRoomWriter(settings: RoomWriterSettings): RoomWriter {
  const { store, events, clock, newId } = settings;
  const now = () => clock().toISOString();
  const inFlight = new Map<string, Set<Promise<unknown>>>();

  const tracked = <T>(roomId: string, write: Promise<T>): Promise<T> => {
    const writes = inFlight.get(roomId) ?? new Set();
    inFlight.set(roomId, writes);
    const done = write.then(
      () => undefined,
      () => undefined,
    );
    writes.add(done);
    void done.then(() => {
      writes.delete(done);
      if (writes.size === 0) inFlight.delete(roomId);
    });
    return write;
  };

  const publish = (roomId: string, event: RoomEvent) => events.publish(roomId, event);

  const appendMessage = async (input: RoomMessageInput) => {
    const message = await tracked(
      input.roomId,
      store.appendMessage({ ...input, id: input.id ?? newId(), createdAt: now() }),
    );
    publish(message.roomId, { type: 'message', message });
    return message;
  };

  return {
    now,
    newId,
    publish,
    announceAction: (record) => publish(record.roomId, { type: 'action', action: toPublicAction(record) }),
    appendMessage,
    appendNote: (roomId, note, extra = []) =>
      appendMessage({
        roomId,
        role: 'system',
        connectionId: null,
        model: null,
        content: [{ type: 'note', text: noteText(note), code: note.code, params: note.params }, ...extra],
        status: 'complete',
        error: null,
        relayDepth: 0,
        relayedFrom: null,
        usage: null,
      }),
    async createTurn(record) {
      const turn = await store.createTurn(record);
      publish(turn.roomId, {
        type: 'turn',
        turnId: turn.id,
        connectionId: turn.connectionId,
        status: 'running',
      });
      return turn;
    },
    async setTurnStatus(turn, status, error = null) {
      await store.updateTurn(turn.id, { status, error, updatedAt: now() });
      publish(turn.roomId, { type: 'turn', turnId: turn.id, connectionId: turn.connectionId, status });
    },
    trackWrite: tracked,
    async settled(roomId) {
      await Promise.all(inFlight.get(roomId) ?? []);
    },
  };
}
