import { describe, expect, it, vi } from 'vitest';
import { createSendFirstTurnScheduler } from './room-turn-scheduler.js';
import { createRoomFixture, promptText } from './testing/room-fixture.test-support.js';
import { type ScriptStep, textReply } from './testing/scripted-language-model.js';

const sendFirst = async (
  ids: string[],
  steps: (id: string) => ScriptStep[] = (id) => [textReply(`${id} here`)],
) =>
  createRoomFixture({
    participants: ids.map((id) => ({ id, name: id.toUpperCase(), steps: steps(id) })),
    scheduler: createSendFirstTurnScheduler(),
  });

describe('a post under a send-first scheduler', () => {
  it('starts the model requests before storing its rows, and reads nothing of an answer before they are stored', async () => {
    const log: string[] = [];
    const fixture = await sendFirst(['a', 'b'], (id) => [
      () => {
        log.push(`request ${id}`);
        return textReply(`${id} here`);
      },
    ]);
    const append = fixture.store.appendMessage.bind(fixture.store);
    vi.spyOn(fixture.store, 'appendMessage').mockImplementation((message) => {
      log.push(`store ${message.connectionId ?? 'operator'} ${message.role}`);
      return append(message);
    });
    const events: string[] = [];
    fixture.events.subscribe(fixture.unified.id, {}, ({ event }) =>
      events.push(event.type === 'message' ? `message ${event.message.status}` : event.type),
    );
    const result = await fixture.engine.postMessage({
      roomId: fixture.unified.id,
      operator: fixture.operator,
      text: 'all?',
    });
    expect(result.message).toMatchObject({ seq: 1, role: 'user', content: [{ type: 'text', text: 'all?' }] });
    expect(log.slice(0, 3)).toEqual(['request a', 'request b', 'store operator user']);
    await fixture.engine.idle();
    // The request had the operator's message in its prompt although it was not stored yet.
    expect(promptText(fixture.model('a').calls[0] as Parameters<typeof promptText>[0])).toContain('all?');
    expect(events.indexOf('delta')).toBeGreaterThan(events.indexOf('message streaming'));
    expect(events.indexOf('message streaming')).toBeGreaterThan(events.indexOf('turn'));
    const replies = (await fixture.store.listMessages(fixture.unified.id)).filter(
      (m) => m.role === 'assistant',
    );
    expect(replies.map((m) => m.status)).toEqual(['complete', 'complete']);
  });

  it('cancels the requests and fails the post, leaving no trace, when its message cannot be stored', async () => {
    const fixture = await sendFirst(['a']);
    vi.spyOn(fixture.store, 'appendMessage').mockRejectedValueOnce(new Error('disk full'));
    const room = fixture.directRoom('a').id;
    const published = fixture.seen.length;
    await expect(
      fixture.engine.postMessage({ roomId: room, operator: fixture.operator, text: 'hi' }),
    ).rejects.toThrow('disk full');
    await fixture.engine.idle();
    expect(fixture.model('a').calls).toHaveLength(1);
    expect(fixture.model('a').cancelled).toBe(1);
    expect(await fixture.store.listMessages(room)).toEqual([]);
    expect(await fixture.store.listTurns({ status: 'running' })).toEqual([]);
    expect(fixture.seen.slice(published)).toEqual([]);
    expect(fixture.errors).toEqual([]);
  });

  it("includes a post still pending in the next prompt of its room, and a reset waits for the post's rows", async () => {
    const fixture = await sendFirst(['a'], () => [textReply('one'), textReply('two')]);
    const room = fixture.directRoom('a').id;
    await Promise.all(
      ['first', 'second'].map((text) =>
        fixture.engine.postMessage({ roomId: room, operator: fixture.operator, text }),
      ),
    );
    await fixture.engine.idle();
    const second = promptText(fixture.model('a').calls[1] as Parameters<typeof promptText>[0]);
    expect(second).toContain('first');
    expect(second).toContain('second');
    const post = fixture.engine.postMessage({ roomId: room, operator: fixture.operator, text: 'third' });
    // The third request is on its way, its rows not yet stored: the reset lands after them.
    await fixture.model('a').started(3);
    await fixture.engine.resetRoom(room);
    await post;
    await fixture.engine.idle();
    expect(await fixture.store.listMessages(room)).toEqual([]);
  });
});
