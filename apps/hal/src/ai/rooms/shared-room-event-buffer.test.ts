import type { RoomEventEnvelope } from '@hal-ai/rooms';
import type { RoomEvent } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import {
  CURSOR_MAX_ORIGINS,
  createSharedRoomEventBuffer,
  formatRoomEventCursor,
  parseRoomEventCursor,
  type SharedRoomEventBuffer,
} from './shared-room-event-buffer.js';

const delta = (text: string): RoomEvent => ({ type: 'delta', messageId: 'm1', connectionId: 'c1', text });
const textOf = (envelope: RoomEventEnvelope) => (envelope.event.type === 'delta' ? envelope.event.text : '?');

/** Two processes whose events reach each other only when `carry` says so (each direction in order). */
function twoProcesses(bufferSize = 500) {
  const a = createSharedRoomEventBuffer({ origin: 'a', bufferSize, firstId: 0 });
  const b = createSharedRoomEventBuffer({ origin: 'b', bufferSize, firstId: 1000 });
  const wire = { a: [] as Array<[number, RoomEvent]>, b: [] as Array<[number, RoomEvent]> };
  const publish = (from: 'a' | 'b', text: string) => {
    const { seq } = (from === 'a' ? a : b).publishOwn('r', delta(text));
    wire[from].push([seq, delta(text)]);
  };
  /** Delivers the next `count` events `from` sent to the other process. */
  const carry = (from: 'a' | 'b', count = Number.POSITIVE_INFINITY) => {
    const target = from === 'a' ? b : a;
    for (const [seq, event] of wire[from].splice(0, count)) target.receive('r', from, seq, event);
  };
  return { a, b, publish, carry };
}

/** A client that follows one process and keeps the last cursor, as the panel does. */
function follow(buffer: SharedRoomEventBuffer, seen: string[], cursor?: string) {
  const state = { cursor, gaps: 0 };
  const subscription = buffer.subscribe(
    'r',
    { ...(cursor !== undefined ? { cursor } : {}), onGap: () => (state.gaps += 1) },
    (envelope) => {
      seen.push(textOf(envelope));
      state.cursor = envelope.cursor;
    },
  );
  return { state, subscription };
}

describe('room event cursors', () => {
  it('formats vectors sorted by origin and reads back only what it formats', () => {
    const cursor = formatRoomEventCursor(
      new Map([
        ['zz9', 5],
        ['a1', 17],
      ]),
    );
    expect(cursor).toBe('a1:17,zz9:5');
    expect(parseRoomEventCursor(cursor)).toEqual(
      new Map([
        ['a1', 17],
        ['zz9', 5],
      ]),
    );
    for (const bad of ['', '12', 'a1:', 'A1:3', 'a1:3,a1:4', 'a1:3;b:2', `${'x'.repeat(17)}:1`]) {
      expect(parseRoomEventCursor(bad)).toBeUndefined();
    }
  });
});

describe('createSharedRoomEventBuffer', () => {
  it('delivers its own events at once and the others as they arrive, in one stream with vector cursors', () => {
    const { a, b, publish, carry } = twoProcesses();
    const seenOnB: RoomEventEnvelope[] = [];
    b.subscribe('r', {}, (envelope) => seenOnB.push(envelope));
    publish('a', 'a1');
    publish('b', 'b1');
    expect(seenOnB.map(textOf)).toEqual(['b1']);
    carry('a');
    expect(seenOnB.map(textOf)).toEqual(['b1', 'a1']);
    expect(seenOnB.map((envelope) => envelope.cursor)).toEqual(['b:1', 'a:1,b:1']);
    expect(b.lastCursor?.('r')).toBe('a:1,b:1');
    expect(a.lastCursor?.('r')).toBe('a:1');
    // A repeat (or an echo of its own) changes nothing.
    b.receive('r', 'a', 1, delta('a1 again'));
    b.receive('r', 'b', 1, delta('echo'));
    expect(seenOnB).toHaveLength(2);
  });

  it('resumes on another process exactly, though the two saw the events in different orders', () => {
    const { a, b, publish, carry } = twoProcesses();
    publish('a', 'a1');
    carry('a');
    // A sees a1 a2 b1; B sees a1 b1 a2.
    publish('b', 'b1');
    publish('a', 'a2');
    carry('b');
    const onA: string[] = [];
    const reader = follow(a, onA, a.lastCursor?.('r'));
    expect(reader.subscription.replayed).toBe(true);
    publish('a', 'a3');
    reader.subscription.unsubscribe();
    carry('a');
    publish('b', 'b2');
    // The client had a1 a2 a3 b1 (cursor a:3,b:1); B has a1 b1 a2 a3 b2: only b2 is new to it.
    expect(reader.state.cursor).toBe('a:3,b:1');
    const onB: string[] = [];
    const resumed = follow(b, onB, reader.state.cursor);
    expect(resumed.subscription.replayed).toBe(true);
    expect(onB).toEqual(['b2']);
    expect(resumed.state.cursor).toBe('a:3,b:2');
  });

  it('skips, when they arrive, the events the client had from the process it read before', () => {
    const { a, b, publish, carry } = twoProcesses();
    const onA: string[] = [];
    const reader = follow(a, onA);
    publish('a', 'a1');
    publish('a', 'a2');
    carry('a', 1);
    reader.subscription.unsubscribe();
    // B has a1 only; the client had a1 a2.
    publish('b', 'b1');
    const onB: string[] = [];
    const resumed = follow(b, onB, reader.state.cursor);
    expect(resumed.subscription.replayed).toBe(true);
    expect(onB).toEqual(['b1']);
    // Its cursor keeps what it had beyond B until B caught up.
    expect(resumed.state.cursor).toBe('a:2,b:1');
    carry('a');
    publish('a', 'a3');
    carry('a');
    expect(onB).toEqual(['b1', 'a3']);
    expect(resumed.state.cursor).toBe('a:3,b:1');
  });

  it('answers a gap when what the client lacks is no longer (or never was) in the buffer', () => {
    const { a, b, publish, carry } = twoProcesses(3);
    publish('a', 'a1');
    const early = a.lastCursor?.('r') as string;
    for (const text of ['a2', 'a3', 'a4', 'a5']) publish('a', text);
    carry('a');
    // a2 fell out of both rings.
    expect(follow(a, [], early).subscription.replayed).toBe(false);
    expect(follow(b, [], early).subscription.replayed).toBe(false);
    // Nothing is missing: fine.
    expect(follow(b, [], 'a:5').subscription.replayed).toBe(true);
    expect(follow(b, [], 'a:2').subscription.replayed).toBe(true);
    // An origin B never heard of in this room: its events may predate B's listening.
    expect(follow(b, [], 'a:5,q:2').subscription.replayed).toBe(false);
    // Not a cursor of this kind, or a numeric id from the future.
    expect(follow(b, [], 'garbage').subscription.replayed).toBe(false);
    expect(b.subscribe('r', { afterId: 999_999 }, () => {}).replayed).toBe(false);
  });

  it('resumes from its own numeric ids too (a client of this process alone)', () => {
    const { a, publish } = twoProcesses();
    publish('a', 'a1');
    const after = a.lastId('r') as number;
    publish('a', 'a2');
    const seen: string[] = [];
    expect(a.subscribe('r', { afterId: after }, (envelope) => seen.push(textOf(envelope))).replayed).toBe(
      true,
    );
    expect(seen).toEqual(['a2']);
    expect(a.resumeFrom('r', after)).toMatchObject({ ok: true, events: [{ id: after + 1 }] });
  });

  it('tells its subscribers about a hole in an origin’s numbers, and refuses to resume across it', () => {
    const { b, publish, carry } = twoProcesses();
    publish('a', 'a1');
    carry('a');
    const cursor = b.lastCursor?.('r') as string;
    const onB: string[] = [];
    const reader = follow(b, onB);
    publish('a', 'a2');
    publish('a', 'a3');
    // a2 is lost on the way.
    b.receive('r', 'a', 3, delta('a3'));
    expect(reader.state.gaps).toBe(1);
    expect(onB).toEqual(['a3']);
    expect(follow(b, [], cursor).subscription.replayed).toBe(false);
    expect(follow(b, [], 'a:3').subscription.replayed).toBe(true);
  });

  it('after lost notifications, tells every subscriber and resumes again once the origin shows nothing is missing', () => {
    const { b, publish, carry } = twoProcesses();
    publish('a', 'a1');
    carry('a');
    const reader = follow(b, []);
    b.lost();
    expect(reader.state.gaps).toBe(1);
    expect(follow(b, [], 'a:1').subscription.replayed).toBe(false);
    publish('a', 'a2');
    carry('a');
    expect(follow(b, [], 'a:1').subscription.replayed).toBe(true);
  });

  it('names at most 16 origins in a cursor, and a full cursor that leaves one out is a gap', () => {
    const b = createSharedRoomEventBuffer({ origin: 'b', firstId: 0 });
    for (let index = 0; index < CURSOR_MAX_ORIGINS + 2; index += 1)
      b.receive('r', `o${index}`, 1, delta(`${index}`));
    const cursor = b.lastCursor?.('r') as string;
    const named = parseRoomEventCursor(cursor) as Map<string, number>;
    expect(named.size).toBe(CURSOR_MAX_ORIGINS);
    // The oldest two were left out.
    expect(named.has('o0') || named.has('o1')).toBe(false);
    expect(follow(b, [], cursor).subscription.replayed).toBe(false);
  });

  it('keeps delivering when a listener throws', () => {
    const errors: unknown[] = [];
    const a = createSharedRoomEventBuffer({ origin: 'a', onListenerError: (error) => errors.push(error) });
    const seen: string[] = [];
    a.subscribe('r', {}, () => {
      throw new Error('boom');
    });
    a.subscribe('r', {}, (envelope) => seen.push(textOf(envelope)));
    a.publish('r', delta('x'));
    expect(seen).toEqual(['x']);
    expect(errors).toHaveLength(1);
  });

  it('over random interleavings of three processes, a client moving between them gets every event exactly once', () => {
    // A fixed generator: the same interleavings on every run.
    let state = 0x2545f491;
    const random = () => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return (state >>> 0) / 2 ** 32;
    };
    const names = ['a', 'b', 'c'] as const;
    let resumed = 0;
    for (let trial = 0; trial < 200; trial += 1) {
      const buffers = new Map(names.map((name) => [name, createSharedRoomEventBuffer({ origin: name })]));
      // One queue per direction: each carries one origin's events in order, at its own pace.
      const wires = new Map<string, Array<[number, RoomEvent]>>();
      for (const from of names) for (const to of names) if (from !== to) wires.set(`${from}>${to}`, []);
      const all: string[] = [];
      const step = () => {
        if (random() < 0.4) {
          const from = names[Math.floor(random() * 3)] as (typeof names)[number];
          const text = `${from}${all.length}`;
          all.push(text);
          const { seq } = (buffers.get(from) as SharedRoomEventBuffer).publishOwn('r', delta(text));
          for (const to of names) if (to !== from) wires.get(`${from}>${to}`)?.push([seq, delta(text)]);
          return;
        }
        const keys = [...wires.keys()];
        const key = keys[Math.floor(random() * keys.length)] as string;
        const next = wires.get(key)?.shift();
        if (!next) return;
        const [from, to] = key.split('>') as [string, (typeof names)[number]];
        buffers.get(to)?.receive('r', from, next[0], next[1]);
      };
      const seen: string[] = [];
      const first = names[trial % 3] as (typeof names)[number];
      const reader = follow(buffers.get(first) as SharedRoomEventBuffer, seen);
      for (let index = 0; index < 5 + Math.floor(random() * 30); index += 1) step();
      reader.subscription.unsubscribe();
      // A client that had nothing yet catches up through the messages route, not a cursor.
      if (reader.state.cursor === undefined) continue;
      for (let index = 0; index < Math.floor(random() * 20); index += 1) step();
      const second = names[(trial + 1 + (trial % 2)) % 3] as (typeof names)[number];
      const again = follow(buffers.get(second) as SharedRoomEventBuffer, seen, reader.state.cursor);
      if (!again.subscription.replayed) continue;
      resumed += 1;
      for (let index = 0; index < 20; index += 1) step();
      // Everything still on the way arrives.
      for (const [key, queue] of wires) {
        const [from, to] = key.split('>') as [string, (typeof names)[number]];
        for (const [seq, event] of queue.splice(0)) buffers.get(to)?.receive('r', from, seq, event);
      }
      expect([...seen].sort()).toEqual([...all].sort());
    }
    // An origin the second process had not heard of yet is a gap (the client catches up); most trials resume.
    expect(resumed).toBeGreaterThan(100);
  });
});
