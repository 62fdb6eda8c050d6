import { describe, expect, it } from 'vitest';
import { usageTokens } from './room-budget.js';
import { createRoomFixture } from './testing/room-fixture.test-support.js';
import { textReply } from './testing/scripted-language-model.js';

describe('a room token budget', () => {
  it('counts the usage providers reported and stops new turns with a HAL note once spent', async () => {
    const usage = { inputTokens: 700, outputTokens: 50 };
    const fixture = await createRoomFixture({
      participants: [{ id: 'c1', name: 'Claude', steps: [textReply('Hello.', usage)] }],
    });
    const room = fixture.directRoom('c1');
    await fixture.store.setRoomBudget(room.id, 1000);
    await fixture.engine.postMessage({ roomId: room.id, operator: fixture.operator, text: 'one' });
    await fixture.engine.idle();
    expect(await fixture.store.getRoom(room.id)).toMatchObject({ tokensUsed: 750, tokenBudget: 1000 });
    await fixture.engine.postMessage({ roomId: room.id, operator: fixture.operator, text: 'two' });
    await fixture.engine.idle();
    expect(await fixture.store.getRoom(room.id)).toMatchObject({ tokensUsed: 1500 });
    expect(fixture.model('c1').calls).toHaveLength(2);

    const refused = await fixture.engine.postMessage({
      roomId: room.id,
      operator: fixture.operator,
      text: 'three',
    });
    await fixture.engine.idle();
    expect(refused.turns).toEqual([]);
    expect(refused.note?.content[0]).toMatchObject({ type: 'note', code: 'token_budget' });
    expect(fixture.model('c1').calls).toHaveLength(2);
    // The operator's words are kept; raising the budget lets the room go on.
    expect(refused.message.content[0]).toEqual({ type: 'text', text: 'three' });
    await fixture.store.setRoomBudget(room.id, null);
    const again = await fixture.engine.postMessage({
      roomId: room.id,
      operator: fixture.operator,
      text: 'four',
    });
    expect(again.turns).toHaveLength(1);
    await fixture.engine.idle();
  });

  it('counts nothing a provider did not report', async () => {
    const fixture = await createRoomFixture({
      participants: [{ id: 'c1', name: 'Claude', steps: [textReply('Hi.')] }],
    });
    const room = fixture.directRoom('c1');
    await fixture.engine.postMessage({ roomId: room.id, operator: fixture.operator, text: 'one' });
    await fixture.engine.idle();
    expect((await fixture.store.getRoom(room.id))?.tokensUsed).toBe(0);
    expect(usageTokens({ totalTokens: 9, inputTokens: 1 })).toBe(9);
    expect(usageTokens(null)).toBe(0);
  });
});
