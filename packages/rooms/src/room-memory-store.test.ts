import { describe, expect, it } from 'vitest';
import { createMemoryRoomStore } from './room-memory-store.js';
import type { NewRoomMessage } from './room-store.js';

function message(roomId: string, id: string): NewRoomMessage {
  return {
    id,
    roomId,
    role: 'user',
    connectionId: null,
    model: null,
    content: [{ type: 'text', text: id }],
    status: 'complete',
    error: null,
    relayDepth: 0,
    relayedFrom: null,
    usage: null,
    createdAt: '2026-01-01T00:00:00.000Z',
  };
}

describe('createMemoryRoomStore', () => {
  it('lists the unified room first, then direct rooms in creation order, with rename rules', async () => {
    const store = createMemoryRoomStore();
    const direct = await store.ensureDirectRoom({ id: 'c1', name: 'Claude' });
    const unified = await store.ensureUnifiedRoom();
    await store.ensureDirectRoom({ id: 'c2', name: 'GPT' });
    expect((await store.listRooms()).map((room) => room.title)).toEqual(['통합', 'Claude', 'GPT']);
    expect(await store.ensureUnifiedRoom()).toEqual(unified);
    await expect(store.renameRoom(unified.id, 'x')).rejects.toMatchObject({ code: 'room_fixed' });
    expect((await store.renameRoom(direct.id, '  Ops  ')).title).toBe('Ops');
    expect((await store.ensureDirectRoom({ id: 'c1', name: 'Claude 2' })).title).toBe('Ops');
    expect((await store.renameRoom(direct.id, ' ')).title).toBe('Claude 2');
    await store.deleteDirectRoom('c1');
    expect(await store.findDirectRoom('c1')).toBeUndefined();
  });

  it('assigns per-room increasing seq atomically, lists after a seq and keeps counting after a clear', async () => {
    const store = createMemoryRoomStore();
    const a = await store.ensureUnifiedRoom();
    const b = await store.ensureDirectRoom({ id: 'c', name: 'C' });
    const appended = await Promise.all(
      Array.from({ length: 20 }, (_, index) => store.appendMessage(message(a.id, `m${index}`))),
    );
    expect(new Set(appended.map((entry) => entry.seq)).size).toBe(20);
    expect((await store.appendMessage(message(b.id, 'other'))).seq).toBe(1);
    expect((await store.listMessages(a.id, { afterSeq: 18 })).map((entry) => entry.seq)).toEqual([19, 20]);
    expect((await store.listMessages(a.id, { limit: 1 })).map((entry) => entry.seq)).toEqual([20]);
    await store.clearMessages(a.id);
    expect(await store.listMessages(a.id)).toEqual([]);
    expect((await store.appendMessage(message(a.id, 'after'))).seq).toBe(21);
  });

  it('returns copies so callers cannot mutate stored messages', async () => {
    const store = createMemoryRoomStore();
    const room = await store.ensureUnifiedRoom();
    const stored = await store.appendMessage(message(room.id, 'm'));
    stored.content.push({ type: 'text', text: 'tampered' });
    expect((await store.getMessage('m'))?.content).toHaveLength(1);
  });
});
