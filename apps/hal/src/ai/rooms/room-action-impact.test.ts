import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRoomTestApp, type RoomTestApp } from './room-app.test-support.js';

/*
 * `GET /ops/api/ai/actions/:id/impact`: what a pending proposal would change, computed by the same operation
 * definition the console's three steps use, for write and high proposals alike.
 */

let t: RoomTestApp;

beforeEach(async () => {
  t = await createRoomTestApp();
});

afterEach(async () => {
  await t.close();
});

const ai = (p: string) => `/ops/api/ai${p}`;

async function directRoom(): Promise<string> {
  const { body } = await t.call('GET', ai('/rooms'));
  return body.rooms[1].id;
}

async function propose(tool: string, input: unknown) {
  t.gpt.enqueue({ toolCall: { name: tool, input } }, { text: 'Continuing after the result.' });
  const roomId = await directRoom();
  await t.call('POST', ai(`/rooms/${roomId}/messages`), { text: `please run ${tool}` });
  await t.ai.engine.idle();
  const { body } = await t.call('GET', ai(`/rooms/${roomId}/messages?after=0`));
  return body.actions.at(-1);
}

async function pendingServer(name: string): Promise<string> {
  return (await t.call('POST', '/ops/api/hal/servers', { name, role: 'web' })).body.server.id;
}

describe('the impact of a proposal', () => {
  it('describes a write proposal as HAL computes it, and refuses a decided or unknown one', async () => {
    const serverId = await pendingServer('web-7');
    const action = await propose('hal_server_approve', { id: serverId });
    expect(action).toMatchObject({ status: 'proposed', risk: 'write' });

    const described = await t.call('GET', ai(`/actions/${action.id}/impact`));
    expect(described.status).toBe(200);
    expect(described.body).toMatchObject({
      action: { id: action.id, tool: 'hal_server_approve' },
      impact: {
        summary: expect.stringContaining('web-7'),
        server: { id: serverId, name: 'web-7', state: 'pending' },
        change: { state: { from: 'pending', to: 'active' } },
      },
      identifiers: [],
      refusal: null,
    });

    const approved = await t.call('POST', ai(`/actions/${action.id}/approve`));
    expect(approved.body.action.status).toBe('executed');
    const decided = await t.call('GET', ai(`/actions/${action.id}/impact`));
    expect(decided.status).toBe(409);
    expect(decided.body.error.code).toBe('action_not_pending');
    expect((await t.call('GET', ai('/actions/act_missing/impact'))).status).toBe(404);
  });

  it('describes a high proposal with the three steps’ impact, and names what HAL would refuse once the target changed', async () => {
    const serverId = await pendingServer('db-3');
    await t.call('POST', `/ops/api/hal/servers/${serverId}/approve`);
    const action = await propose('hal_server_isolate', { id: serverId, reason: 'disk errors' });

    const described = await t.call('GET', ai(`/actions/${action.id}/impact`));
    expect(described.body).toMatchObject({
      impact: { change: { state: { from: 'active', to: 'isolated' } }, reason: 'disk errors' },
      identifiers: [serverId],
      refusal: null,
    });
    const first = await t.call('POST', ai(`/actions/${action.id}/approve`), {});
    expect(first.body.error.code).toBe('three_step_required');
    expect(first.body.error.impact).toEqual(described.body.impact);

    await t.deps.core.servers.isolate('operator:setup', { id: serverId, reason: 'by hand' });
    const refused = await t.call('GET', ai(`/actions/${action.id}/impact`));
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({ impact: null, refusal: { code: 'invalid_state' } });
  });

  it('still executes an approved write proposal the core refuses, and records its failure', async () => {
    const action = await propose('hal_server_approve', { id: 'srv_missing' });
    // The card says what HAL would answer; approving still runs the call, which fails as itself.
    const described = await t.call('GET', ai(`/actions/${action.id}/impact`));
    expect(described.body).toMatchObject({ impact: null, refusal: { code: 'not_found' } });
    const approved = await t.call('POST', ai(`/actions/${action.id}/approve`));
    expect(approved.status).toBe(200);
    expect(approved.body.action).toMatchObject({ status: 'failed', error: { code: 'not_found' } });
  });
});
