import type { Action, RoomEvent, RoomMessage } from '@hal-ai/spec';
import { createParser } from 'eventsource-parser';

/** One parsed SSE frame. */
export interface SseFrame {
  event: string;
  id: string | null;
  data: string;
}

/**
 * An incremental SSE parser (text/event-stream) on `eventsource-parser`: feed it chunks as they
 * arrive, get whole frames back. Comments (heartbeats) are dropped; a frame without `event:` is a
 * `message`. Frames come back per chunk, so the panel renders once per network read, not per frame.
 *
 * @example
 * const parser = createSseParser();
 * for (const frame of parser.push(chunk)) handle(frame);
 */
export function createSseParser(): { push(chunk: string): SseFrame[] } {
  let frames: SseFrame[] = [];
  const parser = createParser({
    onEvent(message) {
      frames.push({ event: message.event ?? 'message', id: message.id ?? null, data: message.data });
    },
  });
  return {
    push(chunk) {
      parser.feed(chunk);
      const parsed = frames;
      frames = [];
      return parsed;
    },
  };
}

/** What the panel knows of one room: messages by id (ordered by seq), streamed text, actions. */
export interface RoomTimeline {
  /** Messages ordered by `seq`, each once. */
  messages(): RoomMessage[];
  /** Text streamed so far for a message that is still `streaming`. */
  streamed(messageId: string): string;
  actions(): Action[];
  action(id: string): Action | undefined;
  /** Highest message `seq` seen: what `messages?after=` continues from. */
  lastSeq(): number;
  /** Last SSE id seen: what `Last-Event-ID` resumes from. */
  lastEventId(): string | null;
  /** Applies a live event; returns false when it changed nothing (a duplicate). */
  apply(event: RoomEvent, eventId?: string | null): boolean;
  /** Merges a `messages?after=` answer (catch-up after a drop or a `resync`). */
  merge(page: { messages: RoomMessage[]; actions?: Action[] }): boolean;
}

function newer(a: Action, b: Action): boolean {
  // Actions only move forward; a decided action never goes back to proposed.
  const rank: Record<string, number> = {
    proposed: 0,
    executing: 1,
    executed: 2,
    failed: 2,
    rejected: 2,
    cancelled: 2,
  };
  return (rank[a.status] ?? 0) >= (rank[b.status] ?? 0);
}

/**
 * The pure resume/dedupe logic of a room: live SSE events and catch-up pages may overlap or
 * arrive twice after a reconnect; messages are keyed by id and ordered by seq, deltas are
 * ignored once their message is final, so nothing shows twice and nothing is lost.
 *
 * @example
 * const timeline = createRoomTimeline();
 * timeline.merge(await api.messages(roomId, 0));
 * timeline.apply({ type: 'delta', messageId, connectionId, text: 'Hel' }, '12');
 */
export function createRoomTimeline(): RoomTimeline {
  const messages = new Map<string, RoomMessage>();
  const streamed = new Map<string, string>();
  const actions = new Map<string, Action>();
  let lastSeq = 0;
  let lastEventId: string | null = null;

  function putMessage(message: RoomMessage): boolean {
    const known = messages.get(message.id);
    if (known && known.status !== 'streaming' && message.status === 'streaming') return false;
    if (known && JSON.stringify(known) === JSON.stringify(message)) return false;
    messages.set(message.id, message);
    if (message.status !== 'streaming') streamed.delete(message.id);
    if (message.seq > lastSeq) lastSeq = message.seq;
    return true;
  }

  function putAction(action: Action): boolean {
    const known = actions.get(action.id);
    if (known && (!newer(action, known) || JSON.stringify(known) === JSON.stringify(action))) return false;
    actions.set(action.id, action);
    return true;
  }

  return {
    messages: () => [...messages.values()].sort((a, b) => a.seq - b.seq),
    streamed: (id) => streamed.get(id) ?? '',
    actions: () => [...actions.values()],
    action: (id) => actions.get(id),
    lastSeq: () => lastSeq,
    lastEventId: () => lastEventId,
    apply(event, eventId) {
      if (eventId !== undefined && eventId !== null) {
        // A replayed frame at or before the cursor was already applied.
        if (lastEventId !== null && /^\d+$/.test(eventId) && /^\d+$/.test(lastEventId)) {
          if (Number(eventId) <= Number(lastEventId)) return false;
        }
        lastEventId = eventId;
      }
      switch (event.type) {
        case 'message':
          return putMessage(event.message);
        case 'delta': {
          const known = messages.get(event.messageId);
          if (known && known.status !== 'streaming') return false;
          streamed.set(event.messageId, (streamed.get(event.messageId) ?? '') + event.text);
          return true;
        }
        case 'action':
          return putAction(event.action);
        default:
          return false;
      }
    },
    merge(page) {
      let changed = false;
      for (const message of page.messages) changed = putMessage(message) || changed;
      for (const action of page.actions ?? []) changed = putAction(action) || changed;
      return changed;
    },
  };
}
