import { HalError, type Room, type RoomMessage } from '@hal-ai/spec';
import type { ActionRecord, RoomStore, TurnRecord } from './room-store.js';

/** Settings of {@link createMemoryRoomStore}. */
export interface MemoryRoomStoreSettings {
  /** Room id generator (default: `room_<n>`). */
  newRoomId?: () => string;
}

interface StoredRoom extends Room {
  customTitle: string | null;
  connectionName: string | null;
}

// Structured clones keep callers from mutating stored state through returned objects,
// the way a SQL store would hand out fresh rows.
function copy<T>(value: T): T {
  return structuredClone(value);
}

/**
 * An in-memory {@link RoomStore} for tests, examples and single-process tools. Atomicity of `seq`
 * and of the action compare-and-set comes from doing each check-and-write synchronously.
 *
 * @example
 * const store = createMemoryRoomStore();
 * const unified = await store.ensureUnifiedRoom();
 */
export function createMemoryRoomStore(settings: MemoryRoomStoreSettings = {}): RoomStore {
  let roomCounter = 0;
  const newRoomId = settings.newRoomId ?? (() => `room_${++roomCounter}`);
  const rooms = new Map<string, StoredRoom>();
  const messages = new Map<string, RoomMessage>();
  const seqByRoom = new Map<string, number>();
  const turns = new Map<string, TurnRecord>();
  const actions = new Map<string, ActionRecord>();

  const nextSeq = (roomId: string): number => {
    const seq = (seqByRoom.get(roomId) ?? 0) + 1;
    seqByRoom.set(roomId, seq);
    return seq;
  };
  const publicRoom = (room: StoredRoom): Room => ({
    id: room.id,
    kind: room.kind,
    title: room.kind === 'direct' ? (room.customTitle ?? room.connectionName ?? room.title) : room.title,
    fixed: room.fixed,
    connectionId: room.connectionId,
    position: room.position,
    tokenBudget: room.tokenBudget,
    tokensUsed: room.tokensUsed,
  });
  const requireRoom = (roomId: string): StoredRoom => {
    const room = rooms.get(roomId);
    if (!room) throw new HalError('not_found', `No room ${roomId}`);
    return room;
  };

  return {
    async listRooms() {
      return [...rooms.values()].sort((a, b) => a.position - b.position).map(publicRoom);
    },
    async getRoom(roomId) {
      const room = rooms.get(roomId);
      return room ? publicRoom(room) : undefined;
    },
    async ensureUnifiedRoom() {
      const existing = [...rooms.values()].find((room) => room.kind === 'unified');
      if (existing) return publicRoom(existing);
      const room: StoredRoom = {
        id: newRoomId(),
        kind: 'unified',
        title: '통합',
        fixed: true,
        connectionId: null,
        position: 0,
        tokenBudget: null,
        tokensUsed: 0,
        customTitle: null,
        connectionName: null,
      };
      rooms.set(room.id, room);
      return publicRoom(room);
    },
    async ensureDirectRoom(connection) {
      const existing = [...rooms.values()].find((room) => room.connectionId === connection.id);
      if (existing) {
        existing.connectionName = connection.name;
        return publicRoom(existing);
      }
      const position = Math.max(0, ...[...rooms.values()].map((room) => room.position)) + 1;
      const room: StoredRoom = {
        id: newRoomId(),
        kind: 'direct',
        title: connection.name,
        fixed: false,
        connectionId: connection.id,
        position,
        tokenBudget: null,
        tokensUsed: 0,
        customTitle: null,
        connectionName: connection.name,
      };
      rooms.set(room.id, room);
      return publicRoom(room);
    },
    async createDebateRoom(input) {
      const position = Math.max(0, ...[...rooms.values()].map((room) => room.position)) + 1;
      const room: StoredRoom = {
        id: newRoomId(),
        kind: 'debate',
        title: input.title,
        fixed: false,
        connectionId: null,
        position,
        tokenBudget: input.tokenBudget,
        tokensUsed: 0,
        customTitle: null,
        connectionName: null,
      };
      rooms.set(room.id, room);
      return publicRoom(room);
    },
    async addRoomUsage(roomId, tokens) {
      const room = requireRoom(roomId);
      room.tokensUsed += Math.max(0, Math.floor(tokens));
      return publicRoom(room);
    },
    async setRoomBudget(roomId, tokenBudget) {
      const room = requireRoom(roomId);
      room.tokenBudget = tokenBudget;
      return publicRoom(room);
    },
    async findDirectRoom(connectionId) {
      const room = [...rooms.values()].find((candidate) => candidate.connectionId === connectionId);
      return room ? publicRoom(room) : undefined;
    },
    async renameRoom(roomId, title) {
      const room = requireRoom(roomId);
      if (room.fixed) throw new HalError('room_fixed', 'The unified room cannot be renamed');
      const trimmed = title?.trim() ?? '';
      if (room.kind === 'debate') {
        // A debate room has no connection name to fall back to: a blank title keeps the current one.
        if (trimmed.length > 0) room.title = trimmed;
        return publicRoom(room);
      }
      room.customTitle = trimmed.length > 0 ? trimmed : null;
      return publicRoom(room);
    },
    async deleteDirectRoom(connectionId) {
      for (const room of rooms.values()) {
        if (room.connectionId !== connectionId) continue;
        rooms.delete(room.id);
        for (const message of messages.values()) if (message.roomId === room.id) messages.delete(message.id);
        for (const action of actions.values()) if (action.roomId === room.id) actions.delete(action.id);
        for (const turn of turns.values()) if (turn.roomId === room.id) turns.delete(turn.id);
      }
    },

    async appendMessage(input) {
      requireRoom(input.roomId);
      if (messages.has(input.id)) throw new HalError('conflict', `Message ${input.id} exists`);
      const message: RoomMessage = { ...copy(input), seq: nextSeq(input.roomId) };
      messages.set(message.id, message);
      return copy(message);
    },
    async updateMessage(messageId, patch) {
      const message = messages.get(messageId);
      if (!message) throw new HalError('not_found', `No message ${messageId}`);
      const defined = Object.fromEntries(
        Object.entries(copy(patch)).filter(([, value]) => value !== undefined),
      );
      Object.assign(message, defined);
      return copy(message);
    },
    async getMessage(messageId) {
      const message = messages.get(messageId);
      return message ? copy(message) : undefined;
    },
    async listMessages(roomId, options = {}) {
      const afterSeq = options.afterSeq ?? 0;
      const list = [...messages.values()]
        .filter((message) => message.roomId === roomId && message.seq > afterSeq)
        .sort((a, b) => a.seq - b.seq);
      const limited = options.limit !== undefined ? list.slice(-options.limit) : list;
      return limited.map(copy);
    },
    async listMessagesByStatus(status) {
      return [...messages.values()].filter((message) => message.status === status).map(copy);
    },
    async clearMessages(roomId) {
      for (const message of messages.values()) if (message.roomId === roomId) messages.delete(message.id);
    },

    async createTurn(turn) {
      turns.set(turn.id, copy(turn));
      return copy(turn);
    },
    async updateTurn(turnId, patch) {
      const turn = turns.get(turnId);
      if (!turn) throw new HalError('not_found', `No turn ${turnId}`);
      turn.status = patch.status;
      turn.updatedAt = patch.updatedAt;
      if (patch.error !== undefined) turn.error = copy(patch.error);
      return copy(turn);
    },
    async getTurn(turnId) {
      const turn = turns.get(turnId);
      return turn ? copy(turn) : undefined;
    },
    async listTurns(filter) {
      return [...turns.values()]
        .filter(
          (turn) =>
            turn.status === filter.status && (filter.roomId === undefined || turn.roomId === filter.roomId),
        )
        .map(copy);
    },

    async createAction(input) {
      requireRoom(input.roomId);
      if (actions.has(input.id)) throw new HalError('conflict', `Action ${input.id} exists`);
      const action: ActionRecord = { ...copy(input), changeSeq: nextSeq(input.roomId) };
      actions.set(action.id, action);
      return copy(action);
    },
    async getAction(actionId) {
      const action = actions.get(actionId);
      return action ? copy(action) : undefined;
    },
    async transitionAction(actionId, from, to, patch = {}) {
      // No await between the check and the write: this is the compare-and-set.
      const action = actions.get(actionId);
      if (!action || !from.includes(action.status)) return null;
      action.status = to;
      if (patch.decidedBy !== undefined) action.decidedBy = patch.decidedBy;
      if (patch.decidedAt !== undefined) action.decidedAt = patch.decidedAt;
      if (patch.result !== undefined) action.result = copy(patch.result);
      if (patch.error !== undefined) action.error = copy(patch.error);
      if (patch.reason !== undefined) action.reason = patch.reason;
      action.changeSeq = nextSeq(action.roomId);
      return copy(action);
    },
    async listActions(roomId, options = {}) {
      const afterSeq = options.afterSeq ?? 0;
      return [...actions.values()]
        .filter((action) => action.roomId === roomId && action.changeSeq > afterSeq)
        .sort((a, b) => a.changeSeq - b.changeSeq)
        .map(copy);
    },
    async listActionsByStatus(status) {
      return [...actions.values()].filter((action) => action.status === status).map(copy);
    },
    async cancelPendingActions(roomId, at) {
      const cancelled: ActionRecord[] = [];
      for (const action of actions.values()) {
        if (action.roomId !== roomId || action.status !== 'proposed') continue;
        action.status = 'cancelled';
        action.decidedAt = at;
        action.changeSeq = nextSeq(roomId);
        cancelled.push(copy(action));
      }
      return cancelled;
    },
  };
}
