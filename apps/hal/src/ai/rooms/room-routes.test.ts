import { randomBytes } from 'node:crypto';
import type { FakeRequest } from '@hal-ai/providers/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createRoomTestApp,
  eventually,
  type RoomTestApp,
  testConnectionBody,
} from './room-app.test-support.js';

let t: RoomTestApp;

beforeEach(async () => {
  t = await createRoomTestApp();
});

afterEach(async () => {
  await t.close();
});

const ai = (p: string) => `/ops/api/ai${p}`;

async function rooms() {
  const { body } = await t.call('GET', ai('/rooms'));
  const [unified, gpt, claude] = body.rooms;
  return { list: body.rooms, unified, gpt, claude };
}

async function post(roomId: string, text: string, context?: unknown) {
  return t.call('POST', ai(`/rooms/${roomId}/messages`), { text, ...(context ? { context } : {}) });
}

async function messages(roomId: string, after = 0) {
  return (await t.call('GET', ai(`/rooms/${roomId}/messages?after=${after}`))).body;
}

const chatRequests = (requests: FakeRequest[]) => requests.filter((request) => request.method === 'POST');
const bodyText = (request: FakeRequest | undefined) => JSON.stringify(request?.body ?? null);

describe('rooms and tabs', () => {
  it('lists the fixed unified room first, then one direct room per connection in order, with renames', async () => {
    const { list, unified, gpt } = await rooms();
    expect(list.map((room: { title: string }) => room.title)).toEqual(['통합', 'GPT', 'Claude']);
    expect(unified).toMatchObject({ kind: 'unified', fixed: true, connectionId: null });
    expect(list.slice(1).map((room: { connectionId: string }) => room.connectionId)).toEqual([
      t.ids.gpt,
      t.ids.claude,
    ]);
    const fixed = await t.call('PATCH', ai(`/rooms/${unified.id}`), { title: 'Mine' });
    expect(fixed.status).toBe(400);
    expect(fixed.body.error.code).toBe('room_fixed');
    expect((await t.call('PATCH', ai(`/rooms/${gpt.id}`), { title: ' Ops ' })).body.room.title).toBe('Ops');
    expect((await rooms()).gpt.title).toBe('Ops');
    expect((await t.call('PATCH', ai(`/rooms/${gpt.id}`), { title: '' })).body.room.title).toBe('GPT');
    expect((await t.call('PATCH', ai('/rooms/room_missing'), { title: 'x' })).status).toBe(404);

    const third = await t.call(
      'POST',
      ai('/connections'),
      testConnectionBody('Gemini', 'openai', t.gpt.baseUrl, t.keys.gpt, 'gpt-large'),
    );
    expect(third.status).toBe(201);
    await eventually(async () =>
      expect((await rooms()).list.map((room: { title: string }) => room.title)).toEqual([
        '통합',
        'GPT',
        'Claude',
        'Gemini',
      ]),
    );
    expect((await t.call('DELETE', ai(`/connections/${t.ids.gpt}`))).status).toBe(204);
    await eventually(async () =>
      expect((await rooms()).list.map((room: { title: string }) => room.title)).toEqual([
        '통합',
        'Claude',
        'Gemini',
      ]),
    );
    const commands = await t.call('GET', ai('/commands'));
    expect(commands.body.commands.map((command: { name: string }) => command.name)).toEqual(
      expect.arrayContaining(['help', 'reset', 'model', 'status']),
    );
  });
});

describe('slash commands', () => {
  it('lets the operator set a room token budget that stops new turns once the reported usage reaches it', async () => {
    const { gpt, unified } = await rooms();
    const refused = await t.call('PATCH', ai(`/rooms/${gpt.id}`), { tokenBudget: 0 });
    expect(refused.body.error.code).toBe('validation_failed');
    const fixed = await t.call('PATCH', ai(`/rooms/${unified.id}`), { title: 'x', tokenBudget: 5 });
    expect(fixed.body.error.code).toBe('room_fixed');
    expect((await rooms()).unified.tokenBudget).toBeNull();
    const set = await t.call('PATCH', ai(`/rooms/${gpt.id}`), { tokenBudget: 1 });
    expect(set.body.room).toMatchObject({ tokenBudget: 1, tokensUsed: 0, title: 'GPT' });
    await post(gpt.id, 'first');
    await t.ai.engine.idle();
    expect((await rooms()).gpt.tokensUsed).toBeGreaterThan(0);
    const calls = chatRequests(t.gpt.requests).length;
    const second = await post(gpt.id, 'second');
    await t.ai.engine.idle();
    expect(second.body.turns).toEqual([]);
    expect(chatRequests(t.gpt.requests)).toHaveLength(calls);
    const { messages: list } = await messages(gpt.id);
    expect(list.at(-1).content[0]).toMatchObject({ type: 'note', code: 'token_budget' });
    expect(
      (await t.call('PATCH', ai(`/rooms/${gpt.id}`), { tokenBudget: null })).body.room.tokenBudget,
    ).toBeNull();
  });

  it('switches a direct room model with /model and refuses what the engine refuses', async () => {
    const { unified, gpt } = await rooms();
    const switched = await post(gpt.id, '/model gpt-large');
    expect(switched.status).toBe(202);
    expect(switched.body.turns).toEqual([]);
    expect(switched.body.note.content[0].text).toContain('gpt-large');
    const listed = (await t.call('GET', ai('/connections'))).body.connections;
    expect(listed.find((c: { id: string }) => c.id === t.ids.gpt).model).toBe('gpt-large');
    const unknownModel = await post(gpt.id, '/model gpt-nope');
    expect(unknownModel.status).toBe(400);
    expect(unknownModel.body.error.code).toBe('model_unavailable');
    expect((await post(unified.id, '/model gpt-large')).body.error.code).toBe('command_needs_direct_room');
    expect((await post(unified.id, '/nope')).body.error.code).toBe('unknown_command');
    expect((await post(unified.id, '/server')).body.error.code).toBe('command_args_required');
    expect(chatRequests(t.gpt.requests)).toHaveLength(0);
    const bad = await post(unified.id, '');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
  });
});

describe('addressing', () => {
  it('broadcasts to every active model with the skill, identity and participants in each system prompt', async () => {
    const { unified } = await rooms();
    t.gpt.enqueue({ text: 'GPT here.' });
    t.claude.enqueue({ text: 'Claude here.' });
    const sent = await post(unified.id, '모두 상태 알려줘', {
      page: { url: '/ops/servers', title: 'Servers' },
    });
    expect(sent.status).toBe(202);
    expect(sent.body.message).toMatchObject({ role: 'user', seq: 1 });
    expect(sent.body.turns.map((turn: { connectionId: string }) => turn.connectionId).sort()).toEqual(
      [t.ids.claude, t.ids.gpt].sort(),
    );
    await t.ai.engine.idle();
    const [gptRequest] = chatRequests(t.gpt.requests);
    const [claudeRequest] = chatRequests(t.claude.requests);
    for (const [request, self] of [
      [gptRequest, 'GPT'],
      [claudeRequest, 'Claude'],
    ] as const) {
      const text = bodyText(request);
      expect(text).toContain('HAL SKILL DOCUMENT (test)');
      expect(text).toContain(`name: ${self}`);
      expect(text).toContain(`${self} role: reviewer`);
      expect(text).toContain('GPT (active');
      expect(text).toContain('Claude (active');
      expect(text).toContain('/ops/servers');
    }
    const body = await messages(unified.id);
    expect(body.pending).toBe(0);
    const answers = body.messages.filter((message: { role: string }) => message.role === 'assistant');
    expect(answers.map((message: { connectionId: string; status: string }) => message.status)).toEqual([
      'complete',
      'complete',
    ]);
    expect(
      answers.map((message: { content: Array<{ text: string }> }) => message.content[0]?.text).sort(),
    ).toEqual(['Claude here.', 'GPT here.']);
  });

  it('sends @name only to that model, refuses unknown names with the participants and disabled ones with 409', async () => {
    const { unified, gpt } = await rooms();
    expect((await post(unified.id, '@Claude 디스크는?')).status).toBe(202);
    await t.ai.engine.idle();
    expect(chatRequests(t.claude.requests)).toHaveLength(1);
    expect(chatRequests(t.gpt.requests)).toHaveLength(0);

    const unknown = await post(unified.id, '@Nobody hello');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'unknown_addressee', participants: ['GPT', 'Claude'] });

    expect((await t.call('PATCH', ai(`/connections/${t.ids.gpt}`), { status: 'disabled' })).status).toBe(200);
    const disabled = await post(unified.id, '@GPT hello');
    expect(disabled.status).toBe(409);
    expect(disabled.body.error.code).toBe('connection_inactive');
    const direct = await post(gpt.id, 'hello');
    expect(direct.status).toBe(409);
    expect(direct.body.error.code).toBe('connection_inactive');
    expect(chatRequests(t.gpt.requests)).toHaveLength(0);
    // Refused messages leave no trace.
    expect(
      (await messages(unified.id)).messages.filter((m: { role: string }) => m.role === 'user'),
    ).toHaveLength(1);
  });

  it('addresses a model whose name has spaces, case-insensitively, by @name and by a leading name:', async () => {
    const renamed = await t.call('PATCH', ai(`/connections/${t.ids.claude}`), { name: 'Claude Opus' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.connection.name).toBe('Claude Opus');
    const { unified } = await rooms();
    expect((await post(unified.id, '@claude opus 디스크는?')).status).toBe(202);
    await t.ai.engine.idle();
    expect((await post(unified.id, 'Claude Opus: 메모리는?')).status).toBe(202);
    await t.ai.engine.idle();
    expect(chatRequests(t.claude.requests)).toHaveLength(2);
    expect(chatRequests(t.gpt.requests)).toHaveLength(0);
    const doubled = await t.call('PATCH', ai(`/connections/${t.ids.gpt}`), { name: 'GPT  5' });
    expect(doubled.status).toBe(400);
    expect(doubled.body.error.code).toBe('validation_failed');
  });

  it('relays once: A calls @B, B answers with relayDepth 1, B calling @A leaves a HAL note', async () => {
    const { unified } = await rooms();
    t.gpt.enqueue({ text: 'Let me ask @Claude about the disk.' });
    t.claude.enqueue({ text: 'Disk is fine, @GPT.' });
    await post(unified.id, '@GPT check the disk');
    await t.ai.engine.idle();
    expect(chatRequests(t.gpt.requests)).toHaveLength(1);
    expect(chatRequests(t.claude.requests)).toHaveLength(1);
    expect(bodyText(chatRequests(t.claude.requests)[0])).toContain('Let me ask @Claude about the disk.');
    const { messages: list } = await messages(unified.id);
    const gptReply = list.find((m: { connectionId: string; role: string }) => m.connectionId === t.ids.gpt);
    const claudeReply = list.find(
      (m: { connectionId: string; role: string }) =>
        m.connectionId === t.ids.claude && m.role === 'assistant',
    );
    expect(gptReply.relayDepth).toBe(0);
    expect(claudeReply).toMatchObject({ relayDepth: 1, relayedFrom: gptReply.id });
    const note = list.find((m: { role: string }) => m.role === 'system');
    expect(note.content[0]).toMatchObject({ type: 'note', code: 'relay_limit' });
  });

  it('keeps private rooms isolated', async () => {
    const { gpt, claude } = await rooms();
    const secret = `alpha-${randomBytes(6).toString('hex')}`;
    await post(gpt.id, `remember ${secret}`);
    await t.ai.engine.idle();
    await post(claude.id, 'what did I say?');
    await t.ai.engine.idle();
    expect(bodyText(chatRequests(t.gpt.requests)[0])).toContain(secret);
    const claudeBody = bodyText(chatRequests(t.claude.requests)[0]);
    expect(claudeBody).toContain('what did I say?');
    expect(claudeBody).not.toContain(secret);
    expect(claudeBody).toContain('private room');
  });
});

describe('tools and provider errors', () => {
  it('runs a read tool and sends its result back in the next request', async () => {
    const { claude } = await rooms();
    t.claude.enqueue({ toolCall: { name: 'hal_servers_list', input: {} } }, { text: 'One server: local.' });
    await post(claude.id, 'which servers?');
    await t.ai.engine.idle();
    const requests = chatRequests(t.claude.requests);
    expect(requests).toHaveLength(2);
    expect(bodyText(requests[0])).toContain('hal_servers_list');
    expect(bodyText(requests[1])).toContain('tool_result');
    expect(bodyText(requests[1])).toContain('srv_local');
    const { messages: list } = await messages(claude.id);
    expect(list.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('stores provider 500 and 401 as failed messages with codes and updates the connection', async () => {
    const { gpt, claude } = await rooms();
    // 5xx is retried twice before any output (SPEC §14); Retry-After 0 keeps the test fast.
    const serverError = { error: { status: 500, message: 'boom', retryAfter: 0 } };
    t.gpt.enqueue(serverError, serverError, serverError);
    await post(gpt.id, 'hi');
    t.claude.enqueue({ error: { status: 401, type: 'authentication_error', message: 'bad key' } });
    await post(claude.id, 'hi');
    await t.ai.engine.idle();
    expect(chatRequests(t.gpt.requests)).toHaveLength(3);
    const failedGpt = (await messages(gpt.id)).messages.find((m: { role: string }) => m.role === 'assistant');
    expect(failedGpt).toMatchObject({
      status: 'failed',
      content: [],
      error: { code: 'provider_unavailable' },
    });
    const failedClaude = (await messages(claude.id)).messages.find(
      (m: { role: string }) => m.role === 'assistant',
    );
    expect(failedClaude).toMatchObject({ status: 'failed', error: { code: 'provider_auth' } });
    const listed = (await t.call('GET', ai('/connections'))).body.connections;
    const claudeConnection = listed.find((c: { id: string }) => c.id === t.ids.claude);
    expect(claudeConnection).toMatchObject({ status: 'error', lastError: { code: 'provider_auth' } });
    const audit = await t.deps.audit.list({ actionPrefix: 'ai.turn.failed' });
    expect(audit.entries).toHaveLength(2);
    // The Claude room now refuses new messages until the connection is fixed.
    expect((await post(claude.id, 'again')).body.error.code).toBe('connection_inactive');
  });
});

async function propose(roomId: string, tool: string, input: unknown) {
  t.gpt.enqueue({ toolCall: { name: tool, input } }, { text: 'Continuing after the result.' });
  await post(roomId, `please run ${tool}`);
  await t.ai.engine.idle();
  const { actions } = await messages(roomId);
  expect(actions).toHaveLength(1);
  return actions[0];
}

const incidentArgs = { key: 'mail.queue-stuck', title: 'Mail queue stuck', severity: 'minor' };

describe('proposals', () => {
  it('needs a recent password to approve a write proposal, executes it once, and continues the model', async () => {
    const { gpt } = await rooms();
    const action = await propose(gpt.id, 'hal_incident_open', incidentArgs);
    expect(action).toMatchObject({ status: 'proposed', risk: 'write', tool: 'hal_incident_open' });
    const { messages: list } = await messages(gpt.id);
    expect(list.find((m: { role: string }) => m.role === 'assistant').content).toContainEqual({
      type: 'action',
      actionId: action.id,
    });

    t.clock.advance(11 * 60 * 1000);
    const stale = await t.call('POST', ai(`/actions/${action.id}/approve`));
    expect(stale.status).toBe(401);
    expect(stale.body.error.code).toBe('reauth_required');
    expect((await t.call('POST', '/ops/api/reauth', { password: t.password })).status).toBe(200);
    const approved = await t.call('POST', ai(`/actions/${action.id}/approve`));
    expect(approved.status).toBe(200);
    expect(approved.body.action).toMatchObject({ id: action.id, status: 'executed' });
    await t.ai.engine.idle();
    const incidents = await t.call('GET', '/ops/api/hal/incidents');
    expect(incidents.body.incidents).toHaveLength(1);
    const requests = chatRequests(t.gpt.requests);
    expect(requests).toHaveLength(2);
    expect(bodyText(requests[1])).toContain('mail.queue-stuck');
    const again = await t.call('POST', ai(`/actions/${action.id}/approve`));
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('action_not_pending');
    const audit = await t.deps.audit.list({ actionPrefix: 'ai.action' });
    expect(audit.entries.map((entry) => entry.action).sort()).toEqual([
      'ai.action.execute',
      'ai.action.propose',
    ]);
    expect(audit.entries.find((entry) => entry.action === 'ai.action.propose')?.actor).toBe(
      `ai:${t.ids.gpt}`,
    );
  });

  it('walks a high proposal through the three steps', async () => {
    const created = await t.call('POST', '/ops/api/hal/servers', { name: 'web-1', role: 'web' });
    const serverId = created.body.server.id;
    await t.call('POST', `/ops/api/hal/servers/${serverId}/approve`);
    const { gpt } = await rooms();
    const action = await propose(gpt.id, 'hal_server_isolate', {
      id: serverId,
      reason: 'suspicious traffic',
    });
    expect(action).toMatchObject({ risk: 'high', identifiers: [serverId] });

    // Malformed confirmations are refused before anything else.
    for (const bad of [
      { zzz: 1 },
      { confirmToken: 5 },
      { confirmImpact: 'yes' },
      { confirmIdentifiers: [1] },
    ]) {
      const refused = await t.call('POST', ai(`/actions/${action.id}/approve`), bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(refused.body.error.code).toBe('validation_failed');
    }

    const first = await t.call('POST', ai(`/actions/${action.id}/approve`), {});
    expect(first.status).toBe(409);
    expect(first.body.error).toMatchObject({ code: 'three_step_required', identifiers: [serverId] });
    expect(first.body.error.impact).toBeTruthy();
    const confirm = {
      confirmToken: first.body.error.confirmToken,
      confirmImpact: true,
      confirmExecute: true,
    };
    const mismatch = await t.call('POST', ai(`/actions/${action.id}/approve`), {
      ...confirm,
      confirmIdentifiers: ['srv_wrong'],
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.code).toBe('identifiers_mismatch');
    expect((await t.call('GET', `/ops/api/hal/servers/${serverId}`)).body.server.state).toBe('active');
    const done = await t.call('POST', ai(`/actions/${action.id}/approve`), {
      ...confirm,
      confirmIdentifiers: [serverId],
    });
    expect(done.status).toBe(200);
    expect(done.body.action.status).toBe('executed');
    expect((await t.call('GET', `/ops/api/hal/servers/${serverId}`)).body.server.state).toBe('isolated');
    // Decided is decided: the answer is action_not_pending, not the isolated server's own state error.
    for (const again of [{}, { ...confirm, confirmIdentifiers: [serverId] }]) {
      const repeated = await t.call('POST', ai(`/actions/${action.id}/approve`), again);
      expect(repeated.status).toBe(409);
      expect(repeated.body.error.code).toBe('action_not_pending');
    }
  });

  it('refuses unknown fields on message, rename and reject bodies without storing anything', async () => {
    const { unified, gpt } = await rooms();
    const message = await post(unified.id, 'hi', undefined);
    expect(message.status).toBe(202);
    await t.ai.engine.idle();
    const before = (await messages(unified.id)).messages.length;
    const extra = await t.call('POST', ai(`/rooms/${unified.id}/messages`), { text: 'hi', zz: 1 });
    expect(extra.status).toBe(400);
    expect(extra.body.error).toMatchObject({ code: 'validation_failed', issues: [{ path: 'zz' }] });
    const wrongType = await t.call('POST', ai(`/rooms/${unified.id}/messages`), { text: 5 });
    expect(wrongType.body.error.message).toMatch(/string/);
    expect((await messages(unified.id)).messages).toHaveLength(before);
    const rename = await t.call('PATCH', ai(`/rooms/${gpt.id}`), { title: 'x', zz: 1 });
    expect(rename.status).toBe(400);
    const action = await propose(gpt.id, 'hal_incident_open', incidentArgs);
    const reject = await t.call('POST', ai(`/actions/${action.id}/reject`), { reason: 'no', zz: 1 });
    expect(reject.status).toBe(400);
    expect((await t.call('GET', ai(`/rooms/${gpt.id}/messages?after=0`))).body.actions[0].status).toBe(
      'proposed',
    );
  });

  it('executes exactly once under 50 parallel approvals', async () => {
    const { gpt } = await rooms();
    const action = await propose(gpt.id, 'hal_incident_open', incidentArgs);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => t.call('POST', ai(`/actions/${action.id}/approve`))),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 409)).toHaveLength(49);
    expect(
      answers.every((answer) => answer.status === 200 || answer.body.error.code === 'action_not_pending'),
    ).toBe(true);
    await t.ai.engine.idle();
    expect((await t.call('GET', '/ops/api/hal/incidents')).body.incidents).toHaveLength(1);
  });

  it('rejects without executing and without calling the model', async () => {
    const { gpt } = await rooms();
    const action = await propose(gpt.id, 'hal_incident_open', incidentArgs);
    const before = chatRequests(t.gpt.requests).length;
    const rejected = await t.call('POST', ai(`/actions/${action.id}/reject`), { reason: 'not now' });
    expect(rejected.status).toBe(200);
    expect(rejected.body.action.status).toBe('rejected');
    await t.ai.engine.idle();
    expect(chatRequests(t.gpt.requests)).toHaveLength(before);
    expect((await t.call('GET', '/ops/api/hal/incidents')).body.incidents).toHaveLength(0);
    const after = await messages(gpt.id, 0);
    const tool = after.messages.filter((m: { role: string }) => m.role === 'tool').at(-1);
    expect(JSON.stringify(tool.content)).toContain('rejected by the operator: not now');
    expect((await t.call('POST', ai('/actions/missing/reject'), { reason: 'x' })).status).toBe(404);
  });

  it('rejects with the session and CSRF token alone, long after the re-auth window closed', async () => {
    const { gpt } = await rooms();
    const action = await propose(gpt.id, 'hal_incident_open', incidentArgs);
    t.clock.advance(11 * 60 * 1000);
    const approve = await t.call('POST', ai(`/actions/${action.id}/approve`));
    expect(approve.body.error.code).toBe('reauth_required');
    const noCsrf = await t.request(ai(`/actions/${action.id}/reject`), {
      method: 'POST',
      headers: { 'x-csrf-token': 'wrong' },
      json: { reason: 'no' },
    });
    expect(noCsrf.status).toBe(403);
    expect(((await noCsrf.json()) as { error: { code: string } }).error.code).toBe('csrf_failed');
    const rejected = await t.call('POST', ai(`/actions/${action.id}/reject`), { reason: 'not safe' });
    expect(rejected.status).toBe(200);
    expect(rejected.body.action).toMatchObject({ id: action.id, status: 'rejected' });
    expect((await t.call('GET', '/ops/api/hal/incidents')).body.incidents).toHaveLength(0);
  });
});
