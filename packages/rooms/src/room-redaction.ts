/**
 * The redaction boundary of the rooms (SPEC §11.1 "secrets are never in chat"): the host hands the engine a
 * `redact` function (HAL's comes from its vault, which knows every stored secret and its encodings; the rooms never
 * import the vault). Everything that enters a room passes it before it is stored or announced: operator messages
 * and their attachments, model replies and their tool calls, tool results, provider errors, action results. The
 * engine also passes every model-bound prompt through it (so a secret stored before the vault knew it still never
 * reaches a model), a proposal's arguments before they are hashed, and audit details. A debate's own records
 * (topic, operator words, replies, working document, verdicts, conclusion) pass it too: they are what its
 * Markdown export, its Wiki.js pages and every DR snapshot of the database are made of.
 */
import type { RoomEvent } from '@hal-ai/spec';
import type { DebateStore } from './debate-store.js';
import type { RoomEventEnvelope, RoomEventHub } from './room-events.js';
import type { RoomStore } from './room-store.js';

/** Replaces every secret the host knows, in any value, by a marker (e.g. `[redacted]`); returns a copy. */
export type RoomRedact = <T>(value: T) => T;

/**
 * A {@link RoomStore} whose writes of messages, turns and action outcomes are redacted first. Reads pass through:
 * what they return was redacted when it was written. New actions are stored as given, because the proposals
 * redact their arguments before computing the hash that approval re-checks.
 *
 * @example
 * const store = createRedactingRoomStore(createMemoryRoomStore(), vault.redact);
 */
export function createRedactingRoomStore(store: RoomStore, redact: RoomRedact): RoomStore {
  return {
    listRooms: () => store.listRooms(),
    getRoom: (roomId) => store.getRoom(roomId),
    ensureUnifiedRoom: () => store.ensureUnifiedRoom(),
    ensureDirectRoom: (connection) => store.ensureDirectRoom(connection),
    findDirectRoom: (connectionId) => store.findDirectRoom(connectionId),
    renameRoom: (roomId, title) => store.renameRoom(roomId, title === null ? null : redact(title)),
    deleteDirectRoom: (connectionId) => store.deleteDirectRoom(connectionId),
    createDebateRoom: (input) => store.createDebateRoom(redact(input)),
    addRoomUsage: (roomId, tokens) => store.addRoomUsage(roomId, tokens),
    setRoomBudget: (roomId, tokenBudget) => store.setRoomBudget(roomId, tokenBudget),
    appendMessage: (message) => store.appendMessage(redact(message)),
    updateMessage: (messageId, patch) => store.updateMessage(messageId, redact(patch)),
    getMessage: (messageId) => store.getMessage(messageId),
    listMessages: (roomId, options) => store.listMessages(roomId, options),
    listMessagesByStatus: (status) => store.listMessagesByStatus(status),
    clearMessages: (roomId) => store.clearMessages(roomId),
    createTurn: (turn) => store.createTurn(redact(turn)),
    updateTurn: (turnId, patch) => store.updateTurn(turnId, redact(patch)),
    getTurn: (turnId) => store.getTurn(turnId),
    listTurns: (filter) => store.listTurns(filter),
    createAction: (action) => store.createAction(action),
    getAction: (actionId) => store.getAction(actionId),
    transitionAction: (actionId, from, to, patch) =>
      store.transitionAction(actionId, from, to, patch === undefined ? undefined : redact(patch)),
    listActions: (roomId, options) => store.listActions(roomId, options),
    listActionsByStatus: (status) => store.listActionsByStatus(status),
    cancelPendingActions: (roomId, at) => store.cancelPendingActions(roomId, at),
  };
}

/**
 * A {@link RoomEventHub} whose published events are redacted first: streamed text deltas go out live, before
 * their message is stored, so they need the boundary of their own. A model may stream a secret in several
 * deltas, each harmless alone: with `heldLength` (the host's "could this tail begin a secret?"), each message's
 * text is redacted as one stream. The tail that could begin a secret waits for the next delta, and whatever
 * still waits goes out (redacted) just before the message's next non-delta event.
 *
 * @example
 * const events = createRedactingEventHub(createRoomEventHub(), vault.redact, vault.heldLength);
 */
export function createRedactingEventHub(
  events: RoomEventHub,
  redact: RoomRedact,
  heldLength?: (text: string) => number,
): RoomEventHub {
  // Per streaming message: the delta text not yet sent, and the delta it came with (for its other fields).
  const held = new Map<string, { text: string; delta: Extract<RoomEvent, { type: 'delta' }> }>();
  const flush = (roomId: string, messageId: string) => {
    const waiting = held.get(messageId);
    if (!waiting) return;
    held.delete(messageId);
    events.publish(roomId, { ...waiting.delta, text: redact(waiting.text) });
  };
  const publish = (roomId: string, event: RoomEvent): RoomEventEnvelope => {
    if (!heldLength) return events.publish(roomId, redact(event));
    if (event.type === 'delta') {
      const text = redact((held.get(event.messageId)?.text ?? '') + event.text);
      const keep = Math.min(heldLength(text), text.length);
      const ready = text.slice(0, text.length - keep);
      if (keep > 0) held.set(event.messageId, { text: text.slice(text.length - keep), delta: event });
      else held.delete(event.messageId);
      if (ready.length > 0) return events.publish(roomId, { ...redact(event), text: ready });
      // Nothing went out yet: the envelope names the room's last cursor (no caller reads it for a delta).
      return { id: events.lastId(roomId) ?? 0, roomId, event: { ...event, text: '' } };
    }
    if (event.type === 'message') flush(roomId, event.message.id);
    return events.publish(roomId, redact(event));
  };
  return {
    publish,
    subscribe: (roomId, options, listener) => events.subscribe(roomId, options, listener),
    resumeFrom: (roomId, afterId) => events.resumeFrom(roomId, afterId),
    lastId: (roomId) => events.lastId(roomId),
    ...(events.lastCursor ? { lastCursor: (roomId: string) => events.lastCursor?.(roomId) } : {}),
  };
}

/**
 * A {@link DebateStore} whose writes are redacted first: a debate keeps the operator's words, every reply, the
 * working document, verdicts and the conclusion in rows of its own, outside the room's messages. Reads pass
 * through (what they return was redacted when it was written).
 *
 * @example
 * const store = createRedactingDebateStore(createMemoryDebateStore(), vault.redact);
 */
export function createRedactingDebateStore(store: DebateStore, redact: RoomRedact): DebateStore {
  return {
    createDebate: (record) => store.createDebate(redact(record)),
    getDebate: (debateId) => store.getDebate(debateId),
    findDebateByRoom: (roomId) => store.findDebateByRoom(roomId),
    listDebates: () => store.listDebates(),
    listDebatesByStatus: (statuses) => store.listDebatesByStatus(statuses),
    updateDebate: (debateId, patch) => store.updateDebate(debateId, redact(patch)),
    commitRound: (debateId, round, document, patch) =>
      store.commitRound(debateId, redact(round), redact(document), redact(patch)),
    listRounds: (debateId) => store.listRounds(debateId),
    listDocumentVersions: (debateId) => store.listDocumentVersions(debateId),
  };
}
