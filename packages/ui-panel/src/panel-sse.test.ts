import { describe, expect, it } from 'vitest';
import { testAction, testMessage } from './panel-dom.test-support.js';
import { createRoomTimeline, createSseParser } from './panel-sse.js';

describe('createSseParser', () => {
  it('parses frames split across chunks, drops heartbeats, joins data lines', () => {
    const parser = createSseParser();
    expect(parser.push('event: delta\nid: 3\ndata: {"a"')).toEqual([]);
    const frames = parser.push(':1}\n\n: heartbeat\n\nevent: message\r\nid: 4\r\ndata: x\r\ndata: y\r\n\r\n');
    expect(frames).toEqual([
      { event: 'delta', id: '3', data: '{"a":1}' },
      { event: 'message', id: '4', data: 'x\ny' },
    ]);
  });
});

describe('createRoomTimeline', () => {
  it('orders by seq and shows each message once when live events and catch-up overlap', () => {
    const timeline = createRoomTimeline();
    const first = testMessage({ id: 'm1', seq: 1 });
    const second = testMessage({ id: 'm2', seq: 2, status: 'streaming', content: [] });
    expect(timeline.apply({ type: 'message', message: second }, '5')).toBe(true);
    expect(timeline.merge({ messages: [first, second] })).toBe(true);
    expect(timeline.merge({ messages: [first, second] })).toBe(false);
    expect(timeline.messages().map((message) => message.id)).toEqual(['m1', 'm2']);
    expect(timeline.lastSeq()).toBe(2);
  });

  it('accumulates deltas, ignores replayed frames at or before the cursor, and drops deltas once final', () => {
    const timeline = createRoomTimeline();
    const streaming = testMessage({ id: 'm1', status: 'streaming', content: [] });
    timeline.apply({ type: 'message', message: streaming }, '1');
    timeline.apply({ type: 'delta', messageId: 'm1', connectionId: 'c1', text: 'Hel' }, '2');
    timeline.apply({ type: 'delta', messageId: 'm1', connectionId: 'c1', text: 'lo' }, '3');
    // A reconnect with Last-Event-ID: 2 replays 3 again: no duplicate text.
    expect(timeline.apply({ type: 'delta', messageId: 'm1', connectionId: 'c1', text: 'lo' }, '3')).toBe(
      false,
    );
    expect(timeline.streamed('m1')).toBe('Hello');
    expect(timeline.lastEventId()).toBe('3');
    const done = testMessage({ id: 'm1', content: [{ type: 'text', text: 'Hello' }] });
    timeline.apply({ type: 'message', message: done }, '4');
    expect(timeline.streamed('m1')).toBe('');
    expect(timeline.apply({ type: 'delta', messageId: 'm1', connectionId: 'c1', text: '!' }, '5')).toBe(
      false,
    );
    // A late catch-up page with the streaming copy never moves a final message back.
    expect(timeline.merge({ messages: [streaming] })).toBe(false);
    expect(timeline.messages()[0]?.status).toBe('complete');
  });

  it('fills a gap from a catch-up page after a resync', () => {
    const timeline = createRoomTimeline();
    timeline.apply({ type: 'message', message: testMessage({ id: 'm1', seq: 1 }) }, '1');
    timeline.merge({ messages: [testMessage({ id: 'm2', seq: 2 }), testMessage({ id: 'm3', seq: 3 })] });
    expect(timeline.messages().map((message) => message.seq)).toEqual([1, 2, 3]);
  });

  it('moves actions only forward', () => {
    const timeline = createRoomTimeline();
    timeline.apply({ type: 'action', action: testAction({ status: 'executing' }) });
    expect(timeline.merge({ messages: [], actions: [testAction({ status: 'proposed' })] })).toBe(false);
    expect(timeline.apply({ type: 'action', action: testAction({ status: 'executed' }) })).toBe(true);
    expect(timeline.action('a1')?.status).toBe('executed');
  });
});
