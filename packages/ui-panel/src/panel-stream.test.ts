import type { Debate } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import { createScriptedApi, testDebate } from './panel-debate.test-support.js';
import { createRoomTimeline } from './panel-sse.js';
import { createRoomStream } from './panel-stream.js';

describe('createRoomStream', () => {
  it("hands a debate room's `debate` events to onDebate and resumes after them", async () => {
    const debate = testDebate({ round: 1 });
    const frames = `event: debate\nid: 7\ndata: ${JSON.stringify({ debate })}\n\n`;
    const seen: Debate[] = [];
    const headers: Array<Record<string, string>> = [];
    const api = createScriptedApi({ get: () => ({ messages: [], actions: [] }) });
    let connects = 0;
    api.fetch = async (_url, init) => {
      connects += 1;
      headers.push({ ...(init?.headers as Record<string, string>) });
      // The second connect stays open until the test closes the stream.
      const body =
        connects === 1
          ? new ReadableStream({
              start(controller) {
                controller.enqueue(new TextEncoder().encode(frames));
                controller.close();
              },
            })
          : new ReadableStream({
              start(controller) {
                init?.signal?.addEventListener('abort', () => controller.error(new Error('aborted')));
              },
            });
      return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    };
    const timers: Array<() => void> = [];
    const timeline = createRoomTimeline();
    const stream = createRoomStream({
      api,
      roomId: 'r-debate',
      timeline,
      onChange: () => undefined,
      onDebate: (changed) => seen.push(changed),
      setTimer: (callback) => timers.push(callback),
    });
    while (timers.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(seen).toEqual([debate]);
    expect(timeline.lastEventId()).toBe('7');
    timers.shift()?.();
    while (connects < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(headers[1]?.['Last-Event-ID']).toBe('7');
    stream.close();
  });
});
