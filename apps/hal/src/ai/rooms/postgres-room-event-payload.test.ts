import type { RoomEvent } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import {
  createRoomEventAssembler,
  encodeRoomEventNotifications,
  NOTIFY_PAYLOAD_MAX_BYTES,
  splitUtf8,
} from './postgres-room-event-payload.js';

const delta = (text: string): RoomEvent => ({ type: 'delta', messageId: 'm1', connectionId: 'c1', text });

describe('splitUtf8', () => {
  it('cuts by UTF-8 bytes, never inside a character or a surrogate pair', () => {
    const text = `${'a'.repeat(5)}한국어😀${'é'.repeat(7)}😀😀`;
    for (const max of [4, 5, 6, 7, 9, 16]) {
      const pieces = splitUtf8(text, max);
      expect(pieces.join('')).toBe(text);
      for (const piece of pieces) {
        expect(Buffer.byteLength(piece)).toBeLessThanOrEqual(max);
        // A lone surrogate would not survive the trip as UTF-8.
        expect(Buffer.from(piece, 'utf8').toString('utf8')).toBe(piece);
      }
    }
    expect(splitUtf8('short', 100)).toEqual(['short']);
  });
});

describe('room event notifications', () => {
  it('sends a small event as one payload and reads it back', () => {
    const payloads = encodeRoomEventNotifications({
      roomId: 'room_1',
      origin: 'k3x9a',
      seq: 7,
      event: delta('hi'),
    });
    expect(payloads).toHaveLength(1);
    expect(payloads[0]).toMatch(/^k3x9a 7 1 1 room_1\n/);
    expect(createRoomEventAssembler().accept(payloads[0] as string)).toEqual({
      roomId: 'room_1',
      origin: 'k3x9a',
      seq: 7,
      event: delta('hi'),
    });
  });

  it('cuts a large event into payloads below the NOTIFY limit and puts it back together, between other senders', () => {
    const text = '긴 답변 😀 '.repeat(4000);
    const roomId = 'room with spaces/and:colons';
    const big = encodeRoomEventNotifications({ roomId, origin: 'aaa', seq: 2, event: delta(text) });
    expect(big.length).toBeGreaterThan(5);
    for (const payload of big) expect(Buffer.byteLength(payload)).toBeLessThan(NOTIFY_PAYLOAD_MAX_BYTES);
    const other = encodeRoomEventNotifications({ roomId: 'r2', origin: 'bbb', seq: 1, event: delta('x') });
    const assembler = createRoomEventAssembler();
    const done = [];
    for (const [index, payload] of big.entries()) {
      const result = assembler.accept(payload);
      if (index < big.length - 1) expect(result).toBeUndefined();
      else done.push(result);
      if (index === 2) done.push(assembler.accept(other[0] as string));
    }
    expect(done).toEqual([
      { roomId: 'r2', origin: 'bbb', seq: 1, event: delta('x') },
      { roomId, origin: 'aaa', seq: 2, event: delta(text) },
    ]);
  });

  it('drops an event whose pieces came out of order or were cut by a reset, and refuses what is not its format', () => {
    const payloads = encodeRoomEventNotifications({
      roomId: 'r',
      origin: 'aaa',
      seq: 1,
      event: delta('y'.repeat(20_000)),
    });
    const assembler = createRoomEventAssembler();
    assembler.accept(payloads[0] as string);
    expect(assembler.accept(payloads[2] as string)).toBeUndefined();
    expect(assembler.accept(payloads[1] as string)).toBeUndefined();
    assembler.accept(payloads[0] as string);
    assembler.reset();
    for (const payload of payloads.slice(1)) expect(assembler.accept(payload)).toBeUndefined();
    expect(() => assembler.accept('hello')).toThrow();
    expect(() => assembler.accept('aaa 1 2 1 r\n{}')).toThrow();
    expect(() => assembler.accept('aaa 1 1 1 r\n"text"')).toThrow();
  });
});
