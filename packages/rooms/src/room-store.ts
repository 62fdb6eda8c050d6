import type {
  Action,
  ActionStatus,
  ContentBlock,
  ErrorInfo,
  MessageRole,
  MessageStatus,
  Room,
  RoomMessage,
  TurnStatus,
  Usage,
} from '@hal-ai/spec';

/** A connection as a direct room needs it. */
export interface RoomConnectionRef {
  id: string;
  /** The connection's name: the room title unless the operator renamed the room. */
  name: string;
}

/** A message to append; the store assigns `seq` (and nothing else). */
export interface NewRoomMessage {
  id: string;
  roomId: string;
  role: MessageRole;
  connectionId: string | null;
  model: string | null;
  content: ContentBlock[];
  status: MessageStatus;
  error: ErrorInfo | null;
  relayDepth: 0 | 1;
  relayedFrom: string | null;
  usage: Usage | null;
  createdAt: string;
}

/** The fields of a message that may change after it was appended. */
export interface RoomMessagePatch {
  status?: MessageStatus;
  content?: ContentBlock[];
  usage?: Usage | null;
  error?: ErrorInfo | null;
  model?: string | null;
}

/** A model turn: one participant answering one trigger (operator message, relay or approval). */
export interface TurnRecord {
  id: string;
  roomId: string;
  connectionId: string;
  status: TurnStatus;
  relayDepth: 0 | 1;
  /** The assistant message that relayed to this turn, if any. */
  relayedFrom: string | null;
  /** The message this turn answers (operator message, relayed reply, or approval result). */
  triggerMessageId: string | null;
  error: ErrorInfo | null;
  createdAt: string;
  updatedAt: string;
}

/** The fields of a turn that may change. */
export interface TurnPatch {
  status: TurnStatus;
  error?: ErrorInfo | null;
  updatedAt: string;
}

/**
 * A stored proposal. The proposal part (tool, canonical args and their hash, identifiers, risk,
 * connection, room, createdAt, expiresAt) is immutable; only the decision fields change, and only
 * through {@link RoomStore.transitionAction}.
 */
export interface ActionRecord extends Action {
  /** Canonical JSON of `args` (sorted keys) as validated when proposed. */
  argsCanonical: string;
  /** SHA-256 hex of `argsCanonical`; checked again before execution. */
  argsHash: string;
  /** After this instant the proposal can no longer be approved. */
  expiresAt: string | null;
  /** The model's tool call this proposal answers (null for MCP requests). */
  toolCallId: string | null;
  /** The turn that proposed it (null for MCP requests). */
  turnId: string | null;
  /** The MCP client that requested it, if any. */
  clientName: string | null;
  /** Why the operator rejected it. */
  reason: string | null;
  /** Per-room change cursor: shares the room's `seq` counter so `?after=<seq>` can find changes. */
  changeSeq: number;
}

/** A new proposal (the store assigns `changeSeq`). */
export type NewActionRecord = Omit<ActionRecord, 'changeSeq'>;

/** The decision fields a transition may set. */
export interface ActionPatch {
  decidedBy?: string | null;
  decidedAt?: string | null;
  result?: unknown;
  error?: ErrorInfo | null;
  reason?: string | null;
}

/**
 * Persistence of rooms, messages, turns and proposals. Every method is async so that a SQL
 * implementation (the app's kysely store) can implement it; {@link createMemoryRoomStore} is the
 * reference implementation used by tests and examples.
 *
 * Two operations must be atomic in every implementation:
 * - {@link RoomStore.appendMessage} assigns a per-room, strictly increasing `seq`;
 * - {@link RoomStore.transitionAction} is a compare-and-set on the status.
 */
export interface RoomStore {
  /** Rooms in position order (the unified room first). */
  listRooms(): Promise<Room[]>;
  getRoom(roomId: string): Promise<Room | undefined>;
  /** The fixed unified room, created on first use. */
  ensureUnifiedRoom(): Promise<Room>;
  /** The direct room of a connection, created on first use (after the existing rooms). Keeps its title in step with the connection name unless renamed. */
  ensureDirectRoom(connection: RoomConnectionRef): Promise<Room>;
  /** The direct room of a connection, if it exists. */
  findDirectRoom(connectionId: string): Promise<Room | undefined>;
  /** Renames a direct room; `null` or blank restores the connection name. The unified room answers `room_fixed`. */
  renameRoom(roomId: string, title: string | null): Promise<Room>;
  /** Creates a debate room (kind `debate`, after the existing rooms) with its token budget. */
  createDebateRoom(input: { title: string; tokenBudget: number | null }): Promise<Room>;
  /** Adds provider-reported tokens to a room's `tokensUsed` atomically; returns the room. */
  addRoomUsage(roomId: string, tokens: number): Promise<Room>;
  /** Sets (or, with `null`, removes) a room's token budget; returns the room. */
  setRoomBudget(roomId: string, tokenBudget: number | null): Promise<Room>;
  /** Deletes a direct room and everything in it (the connection was deleted). */
  deleteDirectRoom(connectionId: string): Promise<void>;

  /** Appends a message and assigns the next `seq` of its room atomically. */
  appendMessage(message: NewRoomMessage): Promise<RoomMessage>;
  updateMessage(messageId: string, patch: RoomMessagePatch): Promise<RoomMessage>;
  getMessage(messageId: string): Promise<RoomMessage | undefined>;
  /** Messages of a room with `seq > afterSeq` (all when omitted), in `seq` order; `limit` keeps the LAST ones. */
  listMessages(roomId: string, options?: { afterSeq?: number; limit?: number }): Promise<RoomMessage[]>;
  /** Messages in a status across every room (start-up recovery). */
  listMessagesByStatus(status: MessageStatus): Promise<RoomMessage[]>;
  /** Deletes every message of a room; `seq` keeps counting so client cursors stay valid. */
  clearMessages(roomId: string): Promise<void>;

  createTurn(turn: TurnRecord): Promise<TurnRecord>;
  updateTurn(turnId: string, patch: TurnPatch): Promise<TurnRecord>;
  getTurn(turnId: string): Promise<TurnRecord | undefined>;
  /** Turns in a status, optionally in one room. */
  listTurns(filter: { status: TurnStatus; roomId?: string }): Promise<TurnRecord[]>;

  createAction(action: NewActionRecord): Promise<ActionRecord>;
  getAction(actionId: string): Promise<ActionRecord | undefined>;
  /**
   * Atomic compare-and-set: moves the action to `to` only if its status is one of `from`, applying
   * `patch`, and returns the updated record; returns `null` when the status did not match (someone
   * else won) or the action does not exist.
   */
  transitionAction(
    actionId: string,
    from: readonly ActionStatus[],
    to: ActionStatus,
    patch?: ActionPatch,
  ): Promise<ActionRecord | null>;
  /** The room's actions whose `changeSeq` is greater than `afterSeq` (all when omitted), oldest change first. */
  listActions(roomId: string, options?: { afterSeq?: number }): Promise<ActionRecord[]>;
  /** Actions in a status across every room (start-up recovery). */
  listActionsByStatus(status: ActionStatus): Promise<ActionRecord[]>;
  /** Moves every `proposed` action of a room to `cancelled`; returns the cancelled ones. */
  cancelPendingActions(roomId: string, at: string): Promise<ActionRecord[]>;
}

/** The public view of a stored proposal (SPEC §14 `Action`). */
export function toPublicAction(record: ActionRecord): Action {
  return {
    id: record.id,
    roomId: record.roomId,
    connectionId: record.connectionId,
    source: record.source,
    tool: record.tool,
    args: record.args,
    risk: record.risk,
    identifiers: [...record.identifiers],
    status: record.status,
    createdAt: record.createdAt,
    decidedBy: record.decidedBy,
    decidedAt: record.decidedAt,
    result: record.result,
    error: record.error,
    tainted: record.tainted,
  };
}
