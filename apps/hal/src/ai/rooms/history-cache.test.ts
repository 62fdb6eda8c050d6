import type { RoomMessage } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import { createHistoryCache } from './history-cache.js';

const message = (seq: number, text = `m${seq}`): RoomMessage => ({
  id: `id${seq}`,
  roomId: 'r',
  seq,
  role: 'user',
  connectionId: null,
  model: null,
  content: [{ type: 'text', text }],
  status: 'complete',
  error: null,
  relayDepth: 0,
  relayedFrom: null,
  usage: null,
  createdAt: '2026-11-30T12:00:00.000Z',
});

describe('createHistoryCache', () => {
  it('keeps no read that overlapped a write, and answers nothing while one is under way', () => {
    const cache = createHistoryCache();
    const keep = cache.beginRead();
    const end = cache.beginWrite();
    expect(keep()).toBe(false);
    cache.set('r', 1, 10, [message(1)]);
    expect(cache.get('r', 1, 10)).toBeUndefined();
    end();
    // A write that began and ended during the read still counts.
    expect(keep()).toBe(false);
    expect(cache.get('r', 1, 10)?.map((entry) => entry.seq)).toEqual([1]);
    expect(cache.beginRead()()).toBe(true);
  });

  it('follows appends in order, drops a copy that missed one, and keeps the last `limit`', () => {
    const cache = createHistoryCache();
    cache.set('r', 2, 2, [message(1), message(2)]);
    cache.appended(message(3));
    expect(cache.get('r', 3, 2)?.map((entry) => entry.seq)).toEqual([2, 3]);
    expect(cache.get('r', 3, 5)).toBeUndefined();
    cache.updated(message(3, 'changed'));
    expect(cache.get('r', 3, 2)?.map((entry) => entry.content)).toEqual([
      [{ type: 'text', text: 'm2' }],
      [{ type: 'text', text: 'changed' }],
    ]);
    // Seq 4 was written elsewhere: 5 cannot follow.
    cache.appended(message(5));
    expect(cache.get('r', 5, 2)).toBeUndefined();
    expect(cache.get('r', 3, 2)).toBeUndefined();
  });

  it('forgets the least recently used room first', () => {
    const cache = createHistoryCache(2);
    for (const room of ['a', 'b']) cache.set(room, 1, 10, [{ ...message(1), roomId: room }]);
    cache.get('a', 1, 10);
    cache.set('c', 1, 10, [{ ...message(1), roomId: 'c' }]);
    expect(cache.get('b', 1, 10)).toBeUndefined();
    expect(cache.get('a', 1, 10)).toHaveLength(1);
    expect(cache.get('c', 1, 10)).toHaveLength(1);
  });
});
