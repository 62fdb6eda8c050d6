import type { AddressInfo } from 'node:net';
import { connectStdioClient } from '@hal-ai/mcp/testing';
import { createMemoryRoomStore, type RoomEventEnvelope, type RoomStore } from '@hal-ai/rooms';
import { serve } from '@hono/node-server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../platform/logger.js';
import { openMcpHost } from '../mcp/mcp-host.js';
import { halMcpLaunch } from '../mcp/mcp-launch.js';
import { createRoomTestApp, type RoomTestApp } from './room-app.test-support.js';
import { trackRoomWrites } from './room-write-log.js';
import { createSqliteRoomEventHub } from './sqlite-room-event-hub.js';
import { type Frame, frameReader } from './sse-frames.test-support.js';

const parsed = (frame: Frame) => JSON.parse(frame.data ?? '{}');
const cardArrived = (actionId: () => string | undefined) => (frames: Frame[]) =>
  frames.some((frame) => frame.event === 'action' && parsed(frame).action?.id === actionId()) &&
  frames.some(
    (frame) =>
      frame.event === 'message' &&
      parsed(frame).message?.content?.some(
        (block: { type: string; actionId?: string }) =>
          block.type === 'action' && block.actionId === actionId(),
      ),
  );

describe('room events of another process on the same SQLite file reach open streams', () => {
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

  const open = async (roomId: string, lastEventId?: string) => {
    const response = await fetch(`${origin}/ops/api/ai/rooms/${roomId}/events`, {
      headers: { cookie: t.session.cookie, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    });
    expect(response.status).toBe(200);
    return frameReader(response);
  };

  it('a separate `hal mcp` process posts a write tool call: the card and its note arrive on every open stream', async () => {
    const unified = (await t.call('GET', '/ops/api/ai/rooms')).body.rooms[0];
    const panels = [await open(unified.id), await open(unified.id)];
    // Started from the sources: no build is needed for HAL to run its MCP server.
    const launch = halMcpLaunch({ dataDir: t.dataDir });
    const mcp = await connectStdioClient(
      { command: launch.command, args: launch.args, env: { ...launch.env, HAL_LOG_LEVEL: 'warn' } },
      { name: 'claude-code', version: '2.1.197' },
    );
    let actionId: string | undefined;
    try {
      const result = await mcp.client.callTool({
        name: 'hal_incident_open',
        arguments: { key: 'mail.live-card', title: 'posted by hal mcp', severity: 'minor' },
      });
      actionId = (result.structuredContent as { actionId?: string }).actionId;
      expect(actionId).toMatch(/.+/);
    } finally {
      await mcp.close();
    }
    for (const panel of panels) {
      const frames = await panel.until(cardArrived(() => actionId));
      const card = frames.find((frame) => frame.event === 'action');
      expect(parsed(card as Frame).action).toMatchObject({
        source: 'mcp',
        status: 'proposed',
        connectionId: null,
      });
      expect(Number(card?.id)).toBeGreaterThan(0);
      await panel.cancel();
    }
  }, 120_000);

  it('a second store on the file: its card arrives with per-room ids that Last-Event-ID resumes; own events are not repeated', async () => {
    const rooms = (await t.call('GET', '/ops/api/ai/rooms')).body.rooms;
    const unified = rooms[0];
    const gptRoom = rooms[1];
    const panel = await open(unified.id);
    const gptPanel = await open(gptRoom.id);
    // This process's own turn: its events come from the engine, once each.
    t.gpt.enqueue({ text: 'Local answer.' });
    expect((await t.call('POST', `/ops/api/ai/rooms/${gptRoom.id}/messages`, { text: 'hi' })).status).toBe(
      202,
    );

    const other = await openMcpHost({ config: t.deps.config, logger: createLogger({ level: 'silent' }) });
    let first: string | undefined;
    let second: string | undefined;
    try {
      first = (
        await other.ai.engine.createExternalProposal({
          tool: 'hal_incident_open',
          args: { key: 'mail.inc-a', title: 'one', severity: 'minor' },
          source: 'mcp',
          clientName: 'other',
        })
      ).id;
      const frames = await panel.until(cardArrived(() => first));
      const lastId = frames.at(-1)?.id as string;
      await panel.cancel();

      second = (
        await other.ai.engine.createExternalProposal({
          tool: 'hal_incident_open',
          args: { key: 'mail.inc-b', title: 'two', severity: 'minor' },
          source: 'mcp',
          clientName: 'other',
        })
      ).id;
      // A panel that reconnects with its last id gets what it missed, from this process's buffer.
      const resumed = await open(unified.id, lastId);
      const replay = await resumed.until(cardArrived(() => second));
      expect(replay.every((frame) => Number(frame.id) > Number(lastId))).toBe(true);
      expect(replay.some((frame) => frame.event === 'action' && parsed(frame).action.id === first)).toBe(
        false,
      );
      await resumed.cancel();

      // A card in the GPT room after the local turn: once it is here, the watcher has passed the turn's rows.
      const third = (
        await other.ai.engine.createExternalProposal({
          tool: 'hal_incident_open',
          args: { key: 'mail.inc-c', title: 'three', severity: 'minor' },
          source: 'mcp',
          clientName: 'other',
          conversation: { roomId: gptRoom.id, connectionId: t.ids.gpt, turnId: null },
        })
      ).id;
      const gptFrames = await gptPanel.until(cardArrived(() => third));
      const messageFrames = gptFrames.filter((frame) => frame.event === 'message');
      const user = messageFrames.filter((frame) => parsed(frame).message.role === 'user');
      expect(user).toHaveLength(1);
      const replies = messageFrames.filter(
        (frame) => parsed(frame).message.role === 'assistant' && parsed(frame).message.status === 'complete',
      );
      expect(replies).toHaveLength(1);
      await gptPanel.cancel();
    } finally {
      await other.close();
    }
  }, 60_000);
});

describe('createSqliteRoomEventHub', () => {
  let inner: RoomStore;
  beforeEach(() => {
    inner = createMemoryRoomStore();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const message = (roomId: string, text: string) => ({
    id: `message-${text}`,
    roomId,
    createdAt: new Date(0).toISOString(),
    role: 'system' as const,
    connectionId: null,
    model: null,
    content: [{ type: 'note' as const, text }],
    status: 'complete' as const,
    error: null,
    relayDepth: 0 as const,
    relayedFrom: null,
    usage: null,
  });

  it('looks at the counters only while someone listens, and publishes only what another writer stored', async () => {
    vi.useFakeTimers();
    const room = await inner.ensureUnifiedRoom();
    const { store, writes } = trackRoomWrites(inner);
    let looks = 0;
    const hub = createSqliteRoomEventHub({
      store,
      writes,
      intervalMs: 50,
      readSequences: async (ids) => {
        looks += 1;
        const all = await inner.listMessages(room.id);
        return new Map(ids.map((id) => [id, all.at(-1)?.seq ?? 0]));
      },
    });
    await vi.advanceTimersByTimeAsync(500);
    expect(looks).toBe(0);

    const seen: RoomEventEnvelope[] = [];
    const subscription = hub.subscribe(room.id, {}, (envelope) => seen.push(envelope));
    await vi.advanceTimersByTimeAsync(60);
    // This process writes through the tracked store (and publishes itself); another writes past it.
    await store.appendMessage(message(room.id, 'mine'));
    const theirs = await inner.appendMessage(message(room.id, 'theirs'));
    await vi.advanceTimersByTimeAsync(120);
    expect(seen.map((envelope) => envelope.event.type === 'message' && envelope.event.message.id)).toEqual([
      theirs.id,
    ]);

    subscription.unsubscribe();
    const before = looks;
    // Nobody listens: no looks; both writers go on.
    await store.appendMessage(message(room.id, 'mine-2'));
    const missed = await inner.appendMessage(message(room.id, 'theirs-2'));
    await vi.advanceTimersByTimeAsync(500);
    expect(looks).toBe(before);

    // The next subscriber (a reconnect) first gets what the other writer stored meanwhile — and nothing of this one's.
    const again: RoomEventEnvelope[] = [];
    const next = hub.subscribe(room.id, {}, (envelope) => again.push(envelope));
    await vi.advanceTimersByTimeAsync(120);
    expect(again.map((envelope) => envelope.event.type === 'message' && envelope.event.message.id)).toEqual([
      missed.id,
    ]);
    next.unsubscribe();
    await hub.close();
  });
});
