import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppEnv } from '../../platform/http/env.js';
import { createRoomTestApp, eventually, type RoomTestApp } from './room-app.test-support.js';
import { createRoomRoutes } from './room-routes.js';
import { createSharedRoomEventBuffer } from './shared-room-event-buffer.js';
import { type Frame, frameReader } from './sse-frames.test-support.js';

const completedReply = (frames: Frame[]) =>
  frames.some(
    (frame) =>
      frame.event === 'message' &&
      JSON.parse(frame.data ?? '{}').message?.role === 'assistant' &&
      JSON.parse(frame.data ?? '{}').message?.status === 'complete',
  );

describe('GET /rooms/:id/events over real HTTP', () => {
  let t: RoomTestApp;
  let server: ReturnType<typeof serve>;
  let origin: string;

  beforeEach(async () => {
    t = await createRoomTestApp();
    server = await new Promise((resolve) => {
      const instance = serve({ fetch: t.app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(instance));
    });
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      if ('closeAllConnections' in server) server.closeAllConnections();
    });
    await t.close();
  });

  const open = (roomId: string, lastEventId?: string) =>
    fetch(`${origin}/ops/api/ai/rooms/${roomId}/events`, {
      headers: { cookie: t.session.cookie, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    });

  it('holds many streams open without a listener-leak warning (one shutdown listener per stream)', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const gpt = (await t.call('GET', '/ops/api/ai/rooms')).body.rooms[1];
      const readers = await Promise.all(
        Array.from({ length: 12 }, async () => frameReader(await open(gpt.id))),
      );
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.all(readers.map((reader) => reader.cancel()));
      expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('streams message, delta and turn frames with ids, resumes with Last-Event-ID and asks to resync when too old', async () => {
    const gpt = (await t.call('GET', '/ops/api/ai/rooms')).body.rooms[1];
    const response = await open(gpt.id);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const first = frameReader(response);
    t.gpt.enqueue({ text: 'First answer in pieces.', chunks: 3 });
    expect((await t.call('POST', `/ops/api/ai/rooms/${gpt.id}/messages`, { text: 'hello' })).status).toBe(
      202,
    );
    const frames = await first.until(completedReply);
    const kinds = new Set(frames.map((frame) => frame.event));
    expect(kinds).toEqual(new Set(['message', 'delta', 'turn']));
    const ids = frames.map((frame) => Number(frame.id));
    expect(ids.every((id) => Number.isSafeInteger(id) && id > 0)).toBe(true);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    const delta = frames.find((frame) => frame.event === 'delta');
    expect(JSON.parse(delta?.data ?? '{}')).toMatchObject({
      connectionId: t.ids.gpt,
      text: expect.any(String),
    });
    const turn = frames.find((frame) => frame.event === 'turn');
    expect(JSON.parse(turn?.data ?? '{}')).toMatchObject({ connectionId: t.ids.gpt, status: 'running' });
    await t.ai.engine.idle();
    await first.until((list) =>
      list.some((frame) => frame.event === 'turn' && JSON.parse(frame.data ?? '{}').status === 'complete'),
    );
    const lastSeen = first.frames.at(-1)?.id as string;
    await first.cancel();

    // While disconnected, a second exchange happens; the resumed stream replays exactly what was missed.
    t.gpt.enqueue({ text: 'Second answer.' });
    await t.call('POST', `/ops/api/ai/rooms/${gpt.id}/messages`, { text: 'again' });
    await t.ai.engine.idle();
    const resumed = frameReader(await open(gpt.id, lastSeen));
    const replay = await resumed.until(completedReply);
    expect(Number(replay[0]?.id)).toBe(Number(lastSeen) + 1);
    expect(replay.some((frame) => frame.event === 'message' && frame.data?.includes('again'))).toBe(true);
    expect(replay.some((frame) => frame.data?.includes('hello'))).toBe(false);
    await resumed.cancel();

    const stale = frameReader(await open(gpt.id, '1'));
    const [resync] = await stale.until((list) => list.length > 0);
    expect(resync?.event).toBe('resync');
    expect(JSON.parse(resync?.data ?? '{}')).toMatchObject({ reason: 'gap' });
    await stale.cancel();

    const other = await open('room_missing');
    expect(other.status).toBe(404);
  });
});

describe('SSE heartbeat', () => {
  it('sends a comment frame on the heartbeat interval', async () => {
    const t = await createRoomTestApp();
    try {
      const app = new Hono<AppEnv>();
      app.use('*', async (c, next) => {
        c.set('operator', { id: 'op_1', username: 'alice' });
        await next();
      });
      app.route('/', createRoomRoutes(t.deps, { heartbeatMs: 30 }));
      const unified = (await t.ai.listRooms())[0];
      const controller = new AbortController();
      const response = await app.request(`/rooms/${unified?.id}/events`, { signal: controller.signal });
      const reader = frameReader(response);
      const frames = await reader.until((list) => list.some((frame) => frame.comment === 'heartbeat'));
      expect(frames.find((frame) => frame.comment)?.comment).toBe('heartbeat');
      controller.abort();
      await reader.cancel();
    } finally {
      await t.close();
    }
  });
});

describe('SSE over a hub shared by several instances', () => {
  it("uses the hub's cursors as frame ids, resumes from one, and asks to resync when the hub lost events", async () => {
    const t = await createRoomTestApp();
    try {
      // The PostgreSQL hub's memory, fed by hand: `a` is this process, `b` another instance.
      const events = createSharedRoomEventBuffer({ origin: 'a' });
      const app = new Hono<AppEnv>();
      app.use('*', async (c, next) => {
        c.set('operator', { id: 'op_1', username: 'alice' });
        await next();
      });
      app.route('/', createRoomRoutes({ ...t.deps, ai: { ...t.ai, events } }, { heartbeatMs: 60_000 }));
      const unified = (await t.ai.listRooms())[0]?.id as string;
      const delta = (text: string) => ({ type: 'delta', messageId: 'm1', connectionId: 'c1', text }) as const;
      const controller = new AbortController();
      const live = frameReader(await app.request(`/rooms/${unified}/events`, { signal: controller.signal }));
      events.publish(unified, delta('mine'));
      events.receive(unified, 'b', 1, delta('theirs'));
      const frames = await live.until((list) => list.length === 2);
      expect(frames.map((frame) => frame.id)).toEqual(['a:1', 'a:1,b:1']);
      events.lost();
      const [resync] = (await live.until((list) => list.length === 3)).slice(2);
      expect(resync?.event).toBe('resync');
      expect(resync?.id).toBe('a:1,b:1');
      controller.abort();
      await live.cancel();

      // A cursor another instance gave: only what it lacks is replayed (b's event was suspect until b's next one).
      events.receive(unified, 'b', 2, delta('theirs again'));
      events.publish(unified, delta('mine again'));
      const again = new AbortController();
      const resumed = frameReader(
        await app.request(`/rooms/${unified}/events`, {
          headers: { 'last-event-id': 'a:1,b:2' },
          signal: again.signal,
        }),
      );
      const [replayed] = await resumed.until((list) => list.length > 0);
      expect(replayed).toMatchObject({ event: 'delta', id: 'a:2,b:2' });
      expect(JSON.parse(replayed?.data ?? '{}')).toMatchObject({ text: 'mine again' });
      again.abort();
      await resumed.cancel();
    } finally {
      await t.close();
    }
  });

  it('asks to resync when the Last-Event-ID is not a cursor this HAL knows', async () => {
    const t = await createRoomTestApp();
    try {
      const unified = (await t.ai.listRooms())[0]?.id as string;
      const response = await t.app.request(`/ops/api/ai/rooms/${unified}/events`, {
        headers: { cookie: t.session.cookie, 'last-event-id': 'k3x9a00000:5' },
      });
      const reader = frameReader(response);
      const [first] = await reader.until((list) => list.length > 0);
      expect(first?.event).toBe('resync');
      await reader.cancel();
    } finally {
      await t.close();
    }
  });
});

describe('restart', () => {
  it('marks a turn that was running when HAL stopped as interrupted', async () => {
    const first = await createRoomTestApp();
    let second: RoomTestApp | undefined;
    try {
      const gpt = (await first.call('GET', '/ops/api/ai/rooms')).body.rooms[1];
      first.gpt.enqueue({ text: 'never arrives', stall: 'before-first-byte' });
      await first.call('POST', `/ops/api/ai/rooms/${gpt.id}/messages`, { text: 'long question' });
      await eventually(async () => {
        const body = (await first.call('GET', `/ops/api/ai/rooms/${gpt.id}/messages?after=0`)).body;
        expect(body.pending).toBe(1);
        expect(body.messages.at(-1)).toMatchObject({ role: 'assistant', status: 'streaming' });
      });

      // A second HAL on the same database file, as after a crash: start-up recovery runs first.
      second = await createRoomTestApp({
        reuse: {
          dataDir: first.dataDir,
          gpt: first.gpt,
          claude: first.claude,
          ids: first.ids,
          keys: first.keys,
        },
      });
      expect(await second.ai.engine.recoverInterrupted()).toMatchObject({ turns: 1, messages: 1 });
      const body = (await second.call('GET', `/ops/api/ai/rooms/${gpt.id}/messages?after=0`)).body;
      expect(body.pending).toBe(0);
      expect(body.messages.at(-1)).toMatchObject({
        role: 'assistant',
        status: 'failed',
        error: { code: 'interrupted' },
      });
      const turns = await second.ai.store.listTurns({ status: 'interrupted', roomId: gpt.id });
      expect(turns).toHaveLength(1);
    } finally {
      await second?.close();
      await first.close();
    }
  });
});
