import type { Action, Debate, RoomEvent, RoomMessage } from '@hal-ai/spec';
import type { PanelApi } from './panel-api.js';
import { createSseParser, type RoomTimeline } from './panel-sse.js';

/** Settings of {@link createRoomStream}. */
export interface RoomStreamSettings {
  api: PanelApi;
  roomId: string;
  timeline: RoomTimeline;
  /** Called after anything in the timeline changed. */
  onChange: () => void;
  /** A debate room's `debate` event: its debate changed (status, round, document, tokens). */
  onDebate?: (debate: Debate) => void;
  /** Delay before a reconnect (default 1 s, doubling up to 15 s). */
  retryMs?: number;
  /** Injected timer (default `setTimeout`). */
  setTimer?: (callback: () => void, ms: number) => unknown;
}

/** A live room: SSE with `Last-Event-ID` resume plus catch-up through `messages?after=`. */
export interface RoomStream {
  /** Re-reads `messages?after=<lastSeq>` now. */
  catchUp(): Promise<void>;
  close(): void;
}

const EVENT_TYPES = new Set(['message', 'delta', 'turn', 'action', 'debate']);

/**
 * Follows a room: reads the SSE stream with `fetch` (so `Last-Event-ID` is ours to send), and on
 * every (re)connect and every `resync` frame fetches `messages?after=<last seq>`; the timeline
 * dedupes, so overlaps never show twice and a dropped connection leaves no gap.
 *
 * @example
 * const stream = createRoomStream({ api, roomId, timeline, onChange: render });
 */
export function createRoomStream(settings: RoomStreamSettings): RoomStream {
  const { api, roomId, timeline, onChange } = settings;
  const setTimer = settings.setTimer ?? ((callback, ms) => setTimeout(callback, ms));
  const baseRetry = settings.retryMs ?? 1000;
  let retry = baseRetry;
  let closed = false;
  let controller: AbortController | undefined;

  async function catchUp(): Promise<void> {
    const page = await api.get<{ messages: RoomMessage[]; actions: Action[] }>(
      `/ops/api/ai/rooms/${encodeURIComponent(roomId)}/messages?after=${timeline.lastSeq()}`,
    );
    if (timeline.merge(page)) onChange();
  }

  async function connect(): Promise<void> {
    controller = new AbortController();
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    const cursor = timeline.lastEventId();
    if (cursor !== null) headers['Last-Event-ID'] = cursor;
    const response = await api.fetch(`${api.baseUrl}/ops/api/ai/rooms/${encodeURIComponent(roomId)}/events`, {
      headers,
      credentials: 'same-origin',
      signal: controller.signal,
    });
    if (!response.ok || !response.body) throw new Error(`events: HTTP ${response.status}`);
    retry = baseRetry;
    // Anything written between the last read and this subscription comes from the catch-up.
    void catchUp().catch(() => undefined);
    const parser = createSseParser();
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      let changed = false;
      for (const frame of parser.push(value)) {
        if (frame.event === 'resync') {
          void catchUp().catch(() => undefined);
          continue;
        }
        if (!EVENT_TYPES.has(frame.event)) continue;
        let data: Record<string, unknown>;
        try {
          data = JSON.parse(frame.data) as Record<string, unknown>;
        } catch {
          continue;
        }
        const event = { type: frame.event, ...data } as RoomEvent;
        // A `debate` frame moves the resume cursor too, then goes to the debate view (the timeline keeps none).
        changed = timeline.apply(event, frame.id) || changed;
        if (event.type === 'debate' && event.debate && typeof event.debate === 'object')
          settings.onDebate?.(event.debate);
      }
      if (changed) onChange();
    }
  }

  function loop(): void {
    if (closed) return;
    connect()
      .catch(() => undefined)
      .finally(() => {
        if (closed) return;
        setTimer(loop, retry);
        retry = Math.min(retry * 2, 15_000);
      });
  }

  loop();
  return {
    catchUp,
    close() {
      closed = true;
      controller?.abort();
    },
  };
}
