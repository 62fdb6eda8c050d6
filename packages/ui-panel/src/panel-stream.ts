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
  /**
   * How long streamed text may wait before it is shown, so that the deltas of that span reach the DOM in one
   * render (default {@link STREAM_BATCH_MS}; 0: every batch renders at once). Anything else renders at once.
   */
  batchMs?: number;
}

/**
 * The default {@link RoomStreamSettings.batchMs}: 20 renders a second while a reply streams. Each render of a
 * streaming message costs a markdown parse and sanitising of its tail, a layout and a paint, whatever the
 * number of tokens in it; a model sends up to ~100 deltas a second, which nobody reads one by one.
 */
export const STREAM_BATCH_MS = 50;

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
  const batchMs = settings.batchMs ?? STREAM_BATCH_MS;
  let batch: ReturnType<typeof setTimeout> | undefined;

  /** Renders now, taking along streamed text that waited for its batch. */
  function changeNow(): void {
    if (batch !== undefined) clearTimeout(batch);
    batch = undefined;
    onChange();
  }
  /** Streamed text only: renders once the batch's time is up (deltas arriving meanwhile join it). */
  function changeSoon(): void {
    if (batchMs <= 0) changeNow();
    else batch ??= setTimeout(changeNow, batchMs);
  }

  async function catchUp(): Promise<void> {
    const page = await api.get<{ messages: RoomMessage[]; actions: Action[] }>(
      `/ops/api/ai/rooms/${encodeURIComponent(roomId)}/messages?after=${timeline.lastSeq()}`,
    );
    if (timeline.merge(page)) changeNow();
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
      let deltasOnly = true;
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
        if (timeline.apply(event, frame.id)) {
          changed = true;
          if (event.type !== 'delta') deltasOnly = false;
        }
        if (event.type === 'debate' && event.debate && typeof event.debate === 'object')
          settings.onDebate?.(event.debate);
      }
      if (changed && deltasOnly) changeSoon();
      else if (changed) changeNow();
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
      if (batch !== undefined) clearTimeout(batch);
      batch = undefined;
      controller?.abort();
    },
  };
}
