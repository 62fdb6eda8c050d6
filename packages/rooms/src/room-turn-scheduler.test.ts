import { HalError } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import type { ScheduledModelCall, TurnScheduler } from './room-turn-scheduler.js';
import { createRoomFixture } from './testing/room-fixture.test-support.js';
import { textReply, toolCallReply } from './testing/scripted-language-model.js';

/** A scheduler that holds every call until the test releases it. */
function createHoldingScheduler() {
  const held: Array<{ request: ScheduledModelCall; release: () => void }> = [];
  const scheduler: TurnScheduler = {
    schedule: (request, call) =>
      new Promise<void>((resolve) => held.push({ request, release: resolve })).then(call),
  };
  const next = async () => {
    while (held.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    return held.shift() as (typeof held)[number];
  };
  return { scheduler, next };
}

describe('the turn scheduler', () => {
  it('decides when each model call of a turn runs: the first and the one after read tools', async () => {
    const holding = createHoldingScheduler();
    const fixture = await createRoomFixture({
      participants: [
        {
          id: 'a',
          name: 'A',
          steps: [toolCallReply([{ toolName: 'hal_servers_list', input: {} }]), textReply('all fine')],
        },
      ],
      scheduler: holding.scheduler,
    });
    const roomId = fixture.directRoom('a').id;
    const { turns } = await fixture.engine.postMessage({
      roomId,
      operator: fixture.operator,
      text: 'servers?',
    });
    const first = await holding.next();
    expect(first.request).toMatchObject({ roomId, connectionId: 'a', turnId: turns[0]?.turnId, step: 0 });
    // Held: the model has not been called, though the message, turn and placeholder are stored.
    expect(fixture.model('a').calls).toHaveLength(0);
    expect((await fixture.store.listMessages(roomId)).map((m) => [m.role, m.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'streaming'],
    ]);
    first.release();
    const second = await holding.next();
    expect(second.request).toMatchObject({ turnId: turns[0]?.turnId, step: 1 });
    expect(fixture.model('a').calls).toHaveLength(1);
    second.release();
    await fixture.engine.idle();
    expect(fixture.model('a').calls).toHaveLength(2);
    expect((await fixture.store.getTurn(turns[0]?.turnId ?? ''))?.status).toBe('complete');
  });

  it('fails the turn with the error of a scheduler that refuses, without calling the model', async () => {
    const fixture = await createRoomFixture({
      participants: [{ id: 'a', name: 'A', steps: [textReply('never')] }],
      scheduler: {
        schedule: async () => {
          throw new HalError('provider_rate_limited', 'Too many requests in flight');
        },
      },
    });
    const roomId = fixture.directRoom('a').id;
    const { turns } = await fixture.engine.postMessage({ roomId, operator: fixture.operator, text: 'hi' });
    await fixture.engine.idle();
    expect(fixture.model('a').calls).toHaveLength(0);
    const reply = (await fixture.store.listMessages(roomId)).find((m) => m.role === 'assistant');
    expect(reply).toMatchObject({ status: 'failed', error: { code: 'provider_rate_limited' } });
    expect(await fixture.store.getTurn(turns[0]?.turnId ?? '')).toMatchObject({
      status: 'failed',
      error: { code: 'provider_rate_limited' },
    });
  });

  it('passes the turn signal: a cancelled turn stops waiting for its slot', async () => {
    const holding = createHoldingScheduler();
    const fixture = await createRoomFixture({
      participants: [{ id: 'a', name: 'A', steps: [textReply('never')] }],
      scheduler: holding.scheduler,
    });
    const roomId = fixture.directRoom('a').id;
    const { turns } = await fixture.engine.postMessage({ roomId, operator: fixture.operator, text: 'hi' });
    const held = await holding.next();
    expect(held.request.signal.aborted).toBe(false);
    expect(fixture.engine.cancelTurnsOf('a')).toBe(1);
    expect(held.request.signal.aborted).toBe(true);
    held.release();
    await fixture.engine.idle();
    expect((await fixture.store.getTurn(turns[0]?.turnId ?? ''))?.status).toBe('cancelled');
  });
});
