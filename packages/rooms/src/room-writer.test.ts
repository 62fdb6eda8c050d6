import type { RoomEvent } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import { createRoomEventHub } from './room-events.js';
import { createMemoryRoomStore } from './room-memory-store.js';
import { createRoomWriter } from './room-writer.js';

describe('createRoomWriter', () => {
  it('announces a row only once it is stored, and lets a reset wait for the writes in flight', async () => {
    const store = createMemoryRoomStore();
    const room = await store.ensureUnifiedRoom();
    const events = createRoomEventHub({ firstId: 0 });
    const seen: RoomEvent[] = [];
    events.subscribe(room.id, {}, ({ event }) => seen.push(event));
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const append = store.appendMessage.bind(store);
    store.appendMessage = async (message) => {
      await gate;
      return append(message);
    };
    let counter = 0;
    const writer = createRoomWriter({
      store,
      events,
      clock: () => new Date(),
      newId: () => `id_${++counter}`,
    });
    const note = writer.appendNote(room.id, {
      code: 'command_model',
      params: { name: 'Alpha', model: 'm-2' },
    });
    let settled = false;
    const waiting = writer.settled(room.id).then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(seen).toEqual([]);
    expect(settled).toBe(false);
    release();
    await waiting;
    // The code and params say it in any language; the text is their English rendering.
    expect((await note).content).toEqual([
      {
        type: 'note',
        text: 'Alpha now uses m-2.',
        code: 'command_model',
        params: { name: 'Alpha', model: 'm-2' },
      },
    ]);
    expect(seen.map((event) => event.type)).toEqual(['message']);
    await writer.settled('another-room');
  });
});
