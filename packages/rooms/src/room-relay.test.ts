import { describe, expect, it } from 'vitest';
import type { RoomParticipant } from './room-engine-types.js';
import { createRoomEventHub } from './room-events.js';
import { createMemoryRoomStore } from './room-memory-store.js';
import { createRelay, type RelaySource } from './room-relay.js';
import { createRoomWriter } from './room-writer.js';
import { createScriptedModel } from './testing/scripted-language-model.js';

const participant = (id: string, name: string, active = true): RoomParticipant => ({
  id,
  name,
  active,
  identity: { role: '', traits: '', instructions: '' },
  model: createScriptedModel({ steps: [] }),
  modelId: `${id}-model`,
  toolSelection: { preset: 'all' },
});

async function setup() {
  const store = createMemoryRoomStore();
  const room = await store.ensureUnifiedRoom();
  let counter = 0;
  const writer = createRoomWriter({
    store,
    events: createRoomEventHub({ firstId: 0 }),
    clock: () => new Date(),
    newId: () => `id_${++counter}`,
  });
  const people = [participant('a', 'Alpha'), participant('b', 'Beta'), participant('c', 'Gamma', false)];
  /** Relayed turns started, each ending when the test says so. */
  const started: Array<{ target: string; source: string; end: () => void }> = [];
  const relay = createRelay({
    writer,
    listParticipants: () => people,
    resolveParticipant: (id) => people.find((entry) => entry.id === id),
    startRelayedTurn: async (_source, { target, sourceMessageId }) => ({
      done: new Promise<void>((end) => started.push({ target: target.id, source: sourceMessageId, end })),
    }),
  });
  const source = (relayDepth: 0 | 1): RelaySource => ({
    roomId: room.id,
    roomKind: 'unified',
    participant: people[0] as RoomParticipant,
    relayDepth,
    operator: null,
    page: null,
  });
  return { store, room, relay, started, source };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('relay', () => {
  it('relays a reply once per mentioned active model, never to its author, and forgets it once those turns end', async () => {
    const { relay, started, source } = await setup();
    await relay.afterReply(source(0), '@Beta @Alpha @Gamma have a look', 'm1');
    expect(started.map((entry) => [entry.target, entry.source])).toEqual([['b', 'm1']]);
    // The same reply again while its relayed turn runs: no second relay.
    await relay.afterReply(source(0), '@Beta again', 'm1');
    expect(started).toHaveLength(1);
    expect(relay.tracked()).toBe(1);
    started[0]?.end();
    await tick();
    expect(relay.tracked()).toBe(0);
  });

  it('keeps bookkeeping bounded over many replies', async () => {
    const { relay, started, source } = await setup();
    for (let index = 0; index < 50; index += 1) {
      await relay.afterReply(source(0), '@Beta?', `m${index}`);
    }
    expect(relay.tracked()).toBe(50);
    for (const entry of started) entry.end();
    await tick();
    expect(relay.tracked()).toBe(0);
  });

  it('leaves only a HAL note for mentions in a relayed reply, and nothing for a direct room', async () => {
    const { relay, started, source, store, room } = await setup();
    await relay.afterReply(source(1), 'ask @Beta', 'm1');
    await relay.afterReply({ ...source(0), roomKind: 'direct' }, 'ask @Beta', 'm2');
    expect(started).toEqual([]);
    const notes = await store.listMessages(room.id);
    expect(notes.map((message) => message.content[0])).toEqual([
      expect.objectContaining({ type: 'note', code: 'relay_limit', text: expect.stringContaining('@Beta') }),
    ]);
    expect(relay.tracked()).toBe(0);
  });
});
