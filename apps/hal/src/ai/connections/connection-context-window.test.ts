import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSharedRevision } from '../../platform/platform-revisions.js';
import { createRoomTestApp, type RoomTestApp } from '../rooms/room-app.test-support.js';

let t: RoomTestApp;

beforeEach(async () => {
  t = await createRoomTestApp();
});

afterEach(async () => {
  await t.close();
});

const modelLists = () => t.gpt.requests.filter((request) => request.path.endsWith('/models')).length;

describe("a connection's context window", () => {
  it("is what the provider's model list reports for the chosen model, read at the check or listed once", async () => {
    // The fakes list no window at first: nothing is assumed (the debate falls back to its default).
    expect(await t.connections.contextWindow(t.ids.gpt)).toBeUndefined();
    expect(await t.connections.contextWindow(t.ids.claude)).toBeUndefined();
    expect(await t.connections.contextWindow('no-such-connection')).toBeUndefined();

    t.gpt.setModels([
      { id: 'gpt-test', contextWindow: 32_000 },
      { id: 'gpt-large', contextWindow: 200_000 },
    ]);
    const checked = await t.call('POST', `/ops/api/ai/connections/${t.ids.gpt}/test`);
    expect(checked.status).toBe(200);
    const listed = modelLists();
    expect(await t.connections.contextWindow(t.ids.gpt)).toBe(32_000);
    // Taken from the check: no further list call.
    expect(modelLists()).toBe(listed);

    // Any change forgets it; the next ask lists once and keeps the answer.
    await t.call('PATCH', `/ops/api/ai/connections/${t.ids.gpt}`, { model: 'gpt-large' });
    const afterChange = modelLists();
    expect(await t.connections.contextWindow(t.ids.gpt)).toBe(200_000);
    expect(await t.connections.contextWindow(t.ids.gpt)).toBe(200_000);
    expect(modelLists() - afterChange).toBeLessThanOrEqual(1);

    // Another instance changed a connection (the shared revision moved): the window is listed again.
    const beforeForeign = modelLists();
    await createSharedRevision(t.deps.db, 'ai_connections').bump();
    expect(await t.connections.contextWindow(t.ids.gpt)).toBe(200_000);
    expect(modelLists()).toBe(beforeForeign + 1);

    // A list that cannot be read gives no window, and is asked again next time.
    await t.gpt.close();
    await t.call('PATCH', `/ops/api/ai/connections/${t.ids.gpt}`, { name: 'GPT two' });
    expect(await t.connections.contextWindow(t.ids.gpt)).toBeUndefined();
  });
});
