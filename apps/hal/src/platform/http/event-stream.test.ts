import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { eventStream, sseFrame } from './event-stream.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const decode = (chunk: Uint8Array | undefined) => new TextDecoder().decode(chunk);

function appWith(
  setup: (push: (frame: string) => void) => void,
  extra: { maxBacklog?: number; closing?: AbortSignal } = {},
) {
  const state = { stopped: 0 };
  const app = new Hono();
  app.get('/events', (c) =>
    eventStream(c, {
      heartbeatMs: 60_000,
      ...extra,
      open(push) {
        setup(push);
        return () => {
          state.stopped += 1;
        };
      },
    }),
  );
  return { app, state };
}

describe('eventStream', () => {
  it('sends SSE headers and writes every frame pushed in one turn of the event loop as one chunk', async () => {
    let push: (frame: string) => void = () => undefined;
    const { app } = appWith((feed) => {
      push = feed;
      feed(sseFrame('turn', '1', '{"a":1}'));
      feed(sseFrame('message', '2', '{"b":2}'));
    });
    const response = await app.request('/events');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(decode((await reader.read()).value)).toBe(
      'event: turn\ndata: {"a":1}\nid: 1\n\nevent: message\ndata: {"b":2}\nid: 2\n\n',
    );
    push(sseFrame('delta', '3', '{"t":"x"}'));
    push(sseFrame('delta', '4', '{"t":"y"}'));
    push(sseFrame('delta', '5', '{"t":"z"}'));
    expect(decode((await reader.read()).value)).toBe(
      'event: delta\ndata: {"t":"x"}\nid: 3\n\nevent: delta\ndata: {"t":"y"}\nid: 4\n\nevent: delta\ndata: {"t":"z"}\nid: 5\n\n',
    );
    await reader.cancel();
  });

  it('with minIntervalMs, writes a frame after a quiet spell at once and gathers a fast run', async () => {
    let push: (frame: string, urgent?: boolean) => void = () => undefined;
    const app = new Hono();
    app.get('/events', (c) =>
      eventStream(c, {
        heartbeatMs: 60_000,
        minIntervalMs: 200,
        open(feed) {
          push = feed;
          return () => undefined;
        },
      }),
    );
    const response = await app.request('/events');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const started = performance.now();
    push(sseFrame('delta', '1', '{}'));
    expect(decode((await reader.read()).value)).toBe('event: delta\ndata: {}\nid: 1\n\n');
    expect(performance.now() - started).toBeLessThan(150);
    // Three more within the interval: one write, no sooner than the interval after the first.
    for (const id of ['2', '3', '4']) {
      push(sseFrame('delta', id, '{}'));
      await tick();
    }
    const gathered = decode((await reader.read()).value);
    expect(gathered.match(/event: delta/g)).toHaveLength(3);
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);
    // Right after a write, a normal frame waits for the interval; an urgent one takes it along at once.
    const wrote = performance.now();
    push(sseFrame('delta', '5', '{}'));
    push(sseFrame('turn', '6', '{}'), true);
    expect(decode((await reader.read()).value)).toBe(
      'event: delta\ndata: {}\nid: 5\n\nevent: turn\ndata: {}\nid: 6\n\n',
    );
    expect(performance.now() - wrote).toBeLessThan(150);
    await reader.cancel();
  });

  it('ends a stream whose reader fell too far behind, after the frames it has, and stops the feed', async () => {
    let push: (frame: string) => void = () => undefined;
    const { app, state } = appWith(
      (feed) => {
        push = feed;
      },
      { maxBacklog: 3 },
    );
    const response = await app.request('/events');
    for (let index = 0; index < 10 && state.stopped === 0; index += 1) {
      push(sseFrame('delta', String(index), '{}'));
      await tick();
    }
    expect(state.stopped).toBe(1);
    const text = await response.text();
    expect(text.split('\n\n').filter(Boolean).length).toBeGreaterThanOrEqual(4);
    expect(text.endsWith('\n\n')).toBe(true);
  });

  it('ends at once when closing is aborted, flushing what was pushed', async () => {
    const closing = new AbortController();
    const { app, state } = appWith((feed) => feed(sseFrame('turn', '1', '{}')), { closing: closing.signal });
    const response = await app.request('/events');
    closing.abort();
    expect(await response.text()).toBe('event: turn\ndata: {}\nid: 1\n\n');
    expect(state.stopped).toBe(1);
  });

  it('stops the feed when a real client disconnects', async () => {
    let push: (frame: string) => void = () => undefined;
    const { app, state } = appWith((feed) => {
      push = feed;
      feed(sseFrame('turn', '1', '{}'));
    });
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const controller = new AbortController();
      const response = await fetch(`http://127.0.0.1:${port}/events`, { signal: controller.signal });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      expect(decode((await reader.read()).value)).toContain('event: turn');
      controller.abort();
      for (let waited = 0; state.stopped === 0 && waited < 200; waited += 1) {
        push(': heartbeat\n\n');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(state.stopped).toBe(1);
    } finally {
      (server as Server).closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
