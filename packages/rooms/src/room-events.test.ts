import type { RoomEvent } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import { createRoomEventHub, type RoomEventEnvelope } from './room-events.js';

const delta = (text: string): RoomEvent => ({ type: 'delta', messageId: 'm1', connectionId: 'c1', text });

describe('createRoomEventHub', () => {
  it('gives each room its own increasing ids and delivers live events', () => {
    const hub = createRoomEventHub({ firstId: 0 });
    const seen: RoomEventEnvelope[] = [];
    hub.subscribe('a', {}, (envelope) => seen.push(envelope));
    expect(hub.publish('a', delta('1')).id).toBe(1);
    expect(hub.publish('b', delta('x')).id).toBe(1);
    expect(hub.publish('a', delta('2')).id).toBe(2);
    expect(seen.map((envelope) => envelope.id)).toEqual([1, 2]);
    expect(hub.lastId('a')).toBe(2);
    expect(hub.lastId('zzz')).toBeUndefined();
  });

  it('replays buffered events after an id, then continues live', () => {
    const hub = createRoomEventHub({ firstId: 100 });
    for (const text of ['a', 'b', 'c', 'd']) hub.publish('r', delta(text));
    const seen: string[] = [];
    const subscription = hub.subscribe('r', { afterId: 102 }, ({ event }) => {
      if (event.type === 'delta') seen.push(event.text);
    });
    expect(subscription.replayed).toBe(true);
    hub.publish('r', delta('e'));
    expect(seen).toEqual(['c', 'd', 'e']);
    subscription.unsubscribe();
    hub.publish('r', delta('f'));
    expect(seen).toEqual(['c', 'd', 'e']);
  });

  it('reports a gap when the cursor fell out of the ring buffer or comes from the future', () => {
    const hub = createRoomEventHub({ bufferSize: 3, firstId: 0 });
    for (let index = 0; index < 10; index += 1) hub.publish('r', delta(String(index)));
    expect(hub.resumeFrom('r', 7)).toEqual({ ok: true, events: expect.any(Array) });
    const resumed = hub.resumeFrom('r', 7);
    expect(resumed.ok && resumed.events.map((envelope) => envelope.id)).toEqual([8, 9, 10]);
    expect(hub.resumeFrom('r', 6)).toEqual({ ok: false, reason: 'gap' });
    expect(hub.resumeFrom('r', 10)).toEqual({ ok: true, events: [] });
    expect(hub.resumeFrom('r', 99)).toEqual({ ok: false, reason: 'gap' });
    const seen: number[] = [];
    const subscription = hub.subscribe('r', { afterId: 2 }, ({ id }) => seen.push(id));
    expect(subscription.replayed).toBe(false);
    expect(seen).toEqual([]);
  });

  it("replays nothing for a cursor it does not know (a shared hub's), but delivers live events", () => {
    const hub = createRoomEventHub({ firstId: 0 });
    hub.publish('r', delta('old'));
    const seen: string[] = [];
    const subscription = hub.subscribe('r', { cursor: 'abc:3' }, ({ event }) => {
      if (event.type === 'delta') seen.push(event.text);
    });
    expect(subscription.replayed).toBe(false);
    hub.publish('r', delta('new'));
    expect(seen).toEqual(['new']);
    expect(hub.lastCursor).toBeUndefined();
  });

  it('starts ids from the clock so that cursors from before a restart are gaps', () => {
    const before = createRoomEventHub();
    const old = before.publish('r', delta('x')).id;
    const after = createRoomEventHub({ firstId: old + 1000 });
    after.publish('r', delta('y'));
    expect(after.resumeFrom('r', old)).toEqual({ ok: false, reason: 'gap' });
  });

  it('keeps delivering when one listener throws', () => {
    const errors: unknown[] = [];
    const hub = createRoomEventHub({ onListenerError: (error) => errors.push(error) });
    const seen: number[] = [];
    hub.subscribe('r', {}, () => {
      throw new Error('boom');
    });
    hub.subscribe('r', {}, ({ id }) => seen.push(id));
    hub.publish('r', delta('x'));
    expect(seen).toHaveLength(1);
    expect(errors).toHaveLength(1);
  });
});
