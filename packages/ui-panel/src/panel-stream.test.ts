import type { Debate } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import { createScriptedApi, testDebate } from './panel-debate.test-support.js';
import { testMessage } from './panel-dom.test-support.js';
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

  it('renders the deltas of one batch once, and anything else at once', async () => {
    const api = createScriptedApi({ get: () => ({ messages: [], actions: [] }) });
    let push: (frame: string) => void = () => undefined;
    api.fetch = async (_url, init) =>
      new Response(
        new ReadableStream({
          start(controller) {
            push = (frame) => controller.enqueue(new TextEncoder().encode(frame));
            init?.signal?.addEventListener('abort', () => controller.error(new Error('aborted')));
          },
        }),
        { status: 200, headers: { 'content-type': 'text/event-stream' } },
      );
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const timeline = createRoomTimeline();
    const shown: string[] = [];
    const stream = createRoomStream({
      api,
      roomId: 'u',
      timeline,
      batchMs: 200,
      onChange: () => shown.push(`${timeline.messages().length}|${timeline.streamed('live')}`),
      setTimer: () => undefined,
    });
    while (api.calls.length === 0) await sleep(5);
    const delta = (id: number, text: string) =>
      `event: delta\nid: ${id}\ndata: ${JSON.stringify({ messageId: 'live', connectionId: 'c1', text })}\n\n`;
    // Three deltas, each its own read of the stream: one render, once the batch's time is up.
    for (const [index, text] of ['one ', 'two ', 'three '].entries()) {
      push(delta(index + 1, text));
      await sleep(20);
    }
    expect(shown).toEqual([]);
    await sleep(300);
    expect(shown).toEqual(['0|one two three ']);
    // A delta then a message (here the streaming message's own frame): the message renders at once and takes
    // the waiting delta along.
    push(delta(4, 'four'));
    await sleep(20);
    const message = testMessage({ id: 'live', seq: 1, status: 'streaming' });
    push(`event: message\nid: 5\ndata: ${JSON.stringify({ message })}\n\n`);
    await sleep(50);
    expect(shown).toEqual(['0|one two three ', '1|one two three four']);
    await sleep(300);
    expect(shown).toHaveLength(2);
    stream.close();
  });
});
