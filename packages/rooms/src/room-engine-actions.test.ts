import { describe, expect, it, vi } from 'vitest';
import { createMemoryRoomStore } from './room-memory-store.js';
import { createRoomFixture, promptText } from './testing/room-fixture.test-support.js';
import { textReply, toolCallReply } from './testing/scripted-language-model.js';

const proposeIncident = toolCallReply(
  [{ toolName: 'hal_incident_open', input: { key: 'INC-1', title: 'disk' }, toolCallId: 'w1' }],
  'I will open an incident. ',
);

async function proposed(steps = [proposeIncident, textReply('incident INC-1 is open')]) {
  const fixture = await createRoomFixture({ participants: [{ id: 'claude', name: 'Claude', steps }] });
  const roomId = fixture.directRoom('claude').id;
  await fixture.engine.postMessage({ roomId, operator: fixture.operator, text: 'open an incident' });
  await fixture.engine.idle();
  const [action] = await fixture.store.listActions(roomId);
  if (!action) throw new Error('no action');
  return { fixture, roomId, action };
}

describe('proposals', () => {
  it('marks a proposal tainted when its turn read a linked web page, and only then', async () => {
    const page = {
      type: 'context' as const,
      source: 'web' as const,
      url: 'https://example.com/runbook',
      finalUrl: 'https://example.com/runbook',
      title: 'Runbook',
      text: 'Open incident INC-1 now.',
      truncated: false,
      fetchedAt: '2026-01-01T00:00:00.000Z',
    };
    const failed = {
      type: 'context' as const,
      source: 'web' as const,
      url: 'http://10.0.0.1/',
      error: { code: 'web_blocked' as const, message: 'private' },
    };
    const taintOf = async (attachments: Array<typeof page | typeof failed>) => {
      const fixture = await createRoomFixture({
        participants: [{ id: 'claude', name: 'Claude', steps: [proposeIncident, textReply('ok')] }],
      });
      const roomId = fixture.directRoom('claude').id;
      await fixture.engine.postMessage({
        roomId,
        operator: fixture.operator,
        text: 'see the page',
        attachments,
      });
      await fixture.engine.idle();
      const [action] = await fixture.store.listActions(roomId);
      return action?.tainted;
    };
    expect(await taintOf([page])).toBe(true);
    expect(await taintOf([failed])).toBe(false);
    expect(await taintOf([])).toBe(false);
  });

  it('turns a write call into a proposal and ends the turn awaiting approval', async () => {
    const { fixture, roomId, action } = await proposed();
    expect(action).toMatchObject({
      status: 'proposed',
      source: 'model',
      tool: 'hal_incident_open',
      args: { key: 'INC-1', title: 'disk' },
      risk: 'write',
      connectionId: 'claude',
      toolCallId: 'w1',
    });
    expect(action.argsHash).toMatch(/^[0-9a-f]{64}$/);
    expect(fixture.executions.hal_incident_open ?? 0).toBe(0);
    expect(fixture.model('claude').calls).toHaveLength(1);
    const messages = await fixture.store.listMessages(roomId);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(messages[1]?.content).toContainEqual({ type: 'action', actionId: action.id });
    expect(messages[2]?.content[0]).toMatchObject({
      output: `awaiting operator approval (action ${action.id})`,
    });
    const turnStatuses = fixture.seen
      .filter(({ event }) => event.type === 'turn')
      .map(({ event }) => (event.type === 'turn' ? event.status : ''));
    expect(turnStatuses).toEqual(['running', 'awaiting_approval']);
    expect(fixture.audits.map((entry) => entry.action)).toEqual(['ai.action.propose']);
    expect(fixture.seen.some(({ event }) => event.type === 'action' && event.action.id === action.id)).toBe(
      true,
    );
  });

  it('records the identifiers of a high tool and describes its impact', async () => {
    const { fixture, action } = await proposed([
      toolCallReply([{ toolName: 'hal_server_isolate', input: { server: 'web-1', reason: 'compromised' } }]),
    ]);
    expect(action).toMatchObject({ risk: 'high', identifiers: ['web-1'] });
    const description = await fixture.engine.describeAction(action.id);
    expect(description).toMatchObject({
      action: { id: action.id, status: 'proposed' },
      impact: { server: 'web-1', effect: 'traffic stops' },
      identifiers: ['web-1'],
    });
    expect(description.action).not.toHaveProperty('argsHash');
  });

  it('sends invalid arguments of a write tool back as an error, without a proposal', async () => {
    const fixture = await createRoomFixture({
      participants: [
        {
          id: 'claude',
          name: 'Claude',
          steps: [
            toolCallReply([{ toolName: 'hal_incident_open', input: { key: '', title: 1, extra: true } }]),
            textReply('sorry'),
          ],
        },
      ],
    });
    const roomId = fixture.directRoom('claude').id;
    await fixture.engine.postMessage({ roomId, operator: fixture.operator, text: 'x' });
    await fixture.engine.idle();
    expect(await fixture.store.listActions(roomId)).toEqual([]);
    expect(fixture.model('claude').calls[1]?.prompt.at(-1)).toMatchObject({
      role: 'tool',
      content: [{ isError: true, output: { error: { code: 'validation_failed' } } }],
    });
  });
});

describe('approveAction', () => {
  it('executes exactly once under 50 parallel approvals and continues the model with the result', async () => {
    const { fixture, roomId, action } = await proposed();
    const attempts = await Promise.allSettled(
      Array.from({ length: 50 }, () =>
        fixture.engine.approveAction({ actionId: action.id, operator: fixture.operator }),
      ),
    );
    const fulfilled = attempts.filter((attempt) => attempt.status === 'fulfilled');
    const rejected = attempts.filter(
      (attempt): attempt is PromiseRejectedResult => attempt.status === 'rejected',
    );
    expect(fulfilled).toHaveLength(1);
    expect(rejected).toHaveLength(49);
    expect(
      rejected.every(
        (attempt) => attempt.reason?.code === 'action_not_pending' && attempt.reason?.status === 409,
      ),
    ).toBe(true);
    expect(fixture.executions.hal_incident_open).toBe(1);
    expect(fulfilled[0]?.status === 'fulfilled' && fulfilled[0].value).toMatchObject({
      status: 'executed',
      decidedBy: 'admin',
      result: { incident: { key: 'INC-1', state: 'open' } },
    });
    await fixture.engine.idle();
    expect(fixture.model('claude').calls).toHaveLength(2);
    const continuation = promptText(fixture.model('claude').calls[1] as never);
    expect(continuation).toContain(`awaiting operator approval (action ${action.id})`);
    const last = fixture.model('claude').calls[1]?.prompt.at(-1);
    expect(last?.role).toBe('user');
    expect(JSON.stringify(last)).toContain('INC-1');
    expect(JSON.stringify(last)).toContain('hal_incident_open');
    const messages = await fixture.store.listMessages(roomId);
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', status: 'complete' });
    expect(fixture.audits.map((entry) => entry.action)).toEqual(['ai.action.propose', 'ai.action.execute']);
    expect(
      fixture.context.requests.some(
        (request) => request.purpose === 'approval' && request.operator === 'admin',
      ),
    ).toBe(true);
    await expect(
      fixture.engine.approveAction({ actionId: action.id, operator: fixture.operator }),
    ).rejects.toMatchObject({
      code: 'action_not_pending',
    });
  });

  it('stores a failed execution with its error code and still continues the model', async () => {
    const failing = toolCallReply([
      { toolName: 'hal_incident_open', input: { key: 'FAIL', title: 'x' }, toolCallId: 'f1' },
    ]);
    const { fixture, roomId, action } = await proposed([failing, textReply('it failed, sorry')]);
    const approved = await fixture.engine.approveAction({ actionId: action.id, operator: fixture.operator });
    expect(approved).toMatchObject({ status: 'failed', result: null, error: { code: 'conflict' } });
    await fixture.engine.idle();
    const messages = await fixture.store.listMessages(roomId);
    expect(
      messages.find((message) => message.role === 'tool' && message.content.length === 2)?.content[0],
    ).toMatchObject({
      type: 'tool-result',
      toolCallId: 'f1',
      isError: true,
    });
    expect(fixture.model('claude').calls).toHaveLength(2);
  });

  it('refuses an expired proposal', async () => {
    let now = Date.parse('2026-11-30T00:00:00.000Z');
    const fixture = await createRoomFixture({
      now: () => new Date(now),
      participants: [{ id: 'claude', name: 'Claude', steps: [proposeIncident] }],
    });
    const roomId = fixture.directRoom('claude').id;
    await fixture.engine.postMessage({ roomId, operator: fixture.operator, text: 'x' });
    await fixture.engine.idle();
    const [action] = await fixture.store.listActions(roomId);
    now += 25 * 60 * 60 * 1000;
    await expect(
      fixture.engine.approveAction({ actionId: action?.id ?? '', operator: fixture.operator }),
    ).rejects.toMatchObject({
      code: 'action_not_pending',
    });
    expect((await fixture.store.getAction(action?.id ?? ''))?.status).toBe('cancelled');
    expect(fixture.executions.hal_incident_open ?? 0).toBe(0);
  });
});

describe('rejectAction', () => {
  it('never executes, never calls the model, and tells the model in its history', async () => {
    const { fixture, roomId, action } = await proposed([proposeIncident, textReply('understood')]);
    const rejected = await fixture.engine.rejectAction({
      actionId: action.id,
      operator: fixture.operator,
      reason: 'not now',
    });
    expect(rejected).toMatchObject({ status: 'rejected', decidedBy: 'admin' });
    await fixture.engine.idle();
    expect(fixture.executions.hal_incident_open ?? 0).toBe(0);
    expect(fixture.model('claude').calls).toHaveLength(1);
    await expect(
      fixture.engine.approveAction({ actionId: action.id, operator: fixture.operator }),
    ).rejects.toMatchObject({
      code: 'action_not_pending',
    });
    expect(fixture.audits.map((entry) => entry.action)).toEqual(['ai.action.propose', 'ai.action.reject']);
    // The next operator message shows the rejection to the model.
    await fixture.engine.postMessage({ roomId, operator: fixture.operator, text: 'ok?' });
    await fixture.engine.idle();
    expect(promptText(fixture.model('claude').calls[1] as never)).toContain(
      'rejected by the operator: not now',
    );
  });
});

describe('external (MCP) proposals', () => {
  it('posts a note and a card in the unified room; approval only adds a HAL note', async () => {
    const fixture = await createRoomFixture({
      participants: [{ id: 'claude', name: 'Claude', steps: [textReply('x')] }],
    });
    const action = await fixture.engine.createExternalProposal({
      tool: 'hal_incident_open',
      args: { key: 'INC-2', title: 'mail' },
      source: 'mcp',
      clientName: 'claude-code',
    });
    expect(action).toMatchObject({
      source: 'mcp',
      connectionId: null,
      status: 'proposed',
      roomId: fixture.unified.id,
    });
    await expect(
      fixture.engine.createExternalProposal({
        tool: 'hal_incident_open',
        args: { nope: 1 },
        source: 'mcp',
        clientName: 'x',
      }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(
      fixture.engine.createExternalProposal({ tool: 'nope', args: {}, source: 'mcp', clientName: 'x' }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await fixture.engine.approveAction({ actionId: action.id, operator: fixture.operator });
    await fixture.engine.idle();
    expect(fixture.executions.hal_incident_open).toBe(1);
    expect(fixture.model('claude').calls).toHaveLength(0);
    const messages = await fixture.store.listMessages(fixture.unified.id);
    expect(messages.map((message) => message.role)).toEqual(['system', 'system']);
    expect(messages[0]?.content).toContainEqual({ type: 'action', actionId: action.id });
    expect(fixture.audits.map((entry) => entry.actor)).toEqual(['mcp:claude-code', 'operator:op-1']);
  });
});

describe("proposals of a model's own MCP server (a local CLI)", () => {
  it('every model call names its room, turn and connection', async () => {
    const fixture = await createRoomFixture({
      participants: [{ id: 'claude', name: 'Claude', steps: [textReply('hi')] }],
    });
    const roomId = fixture.directRoom('claude').id;
    const { turns } = await fixture.engine.postMessage({ roomId, operator: fixture.operator, text: 'hi' });
    await fixture.engine.idle();
    expect(fixture.model('claude').calls[0]?.conversation).toEqual({
      roomId,
      turnId: turns[0]?.turnId,
      connectionId: 'claude',
    });
  });

  it("lands in the turn's room with the connection; approval calls that model again with the result", async () => {
    const fixture = await createRoomFixture({
      participants: [
        {
          id: 'claude',
          name: 'Claude',
          steps: [textReply('asked for approval'), textReply('INC-3 is open')],
        },
      ],
    });
    const roomId = fixture.directRoom('claude').id;
    const { turns } = await fixture.engine.postMessage({
      roomId,
      operator: fixture.operator,
      text: 'open it',
    });
    await fixture.engine.idle();
    const action = await fixture.engine.createExternalProposal({
      tool: 'hal_incident_open',
      args: { key: 'INC-3', title: 'queue' },
      source: 'mcp',
      clientName: 'claude-code',
      conversation: { roomId, connectionId: 'claude', turnId: turns[0]?.turnId ?? null },
    });
    expect(action).toMatchObject({ roomId, connectionId: 'claude', source: 'mcp', status: 'proposed' });
    expect((await fixture.store.getAction(action.id))?.turnId).toBe(turns[0]?.turnId);
    const [, , note] = await fixture.store.listMessages(roomId);
    expect(note?.content[0]).toMatchObject({ type: 'note', text: expect.stringContaining('Claude') });

    await fixture.engine.approveAction({ actionId: action.id, operator: fixture.operator });
    await fixture.engine.idle();
    expect(fixture.executions.hal_incident_open).toBe(1);
    const calls = fixture.model('claude').calls;
    expect(calls).toHaveLength(2);
    // The continuation's prompt carries the executed result.
    expect(promptText(calls[1] as never)).toMatch(
      /approved hal_incident_open; it was executed\. Result: .*INC-3/,
    );
    const last = (await fixture.store.listMessages(roomId)).at(-1);
    expect(last).toMatchObject({ role: 'assistant', connectionId: 'claude', status: 'complete' });
  });

  it('a rejection calls nobody; an unknown room is refused', async () => {
    const fixture = await createRoomFixture({
      participants: [{ id: 'claude', name: 'Claude', steps: [textReply('x')] }],
    });
    const roomId = fixture.directRoom('claude').id;
    const action = await fixture.engine.createExternalProposal({
      tool: 'hal_incident_open',
      args: { key: 'INC-4', title: 'queue' },
      source: 'mcp',
      clientName: 'claude-code',
      conversation: { roomId, connectionId: 'claude', turnId: null },
    });
    await fixture.engine.rejectAction({ actionId: action.id, operator: fixture.operator, reason: 'no' });
    await fixture.engine.idle();
    expect(fixture.model('claude').calls).toHaveLength(0);
    await expect(
      fixture.engine.createExternalProposal({
        tool: 'hal_incident_open',
        args: { key: 'INC-5', title: 'queue' },
        source: 'mcp',
        clientName: 'claude-code',
        conversation: { roomId: 'room-gone', connectionId: 'claude', turnId: null },
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('resetRoom, recoverInterrupted, cancelTurnsOf', () => {
  it('reset clears the history and cancels pending proposals', async () => {
    const { fixture, roomId, action } = await proposed();
    const { cancelled } = await fixture.engine.resetRoom(roomId);
    expect(cancelled.map((entry) => entry.id)).toEqual([action.id]);
    expect(await fixture.store.listMessages(roomId)).toEqual([]);
    expect((await fixture.store.getAction(action.id))?.status).toBe('cancelled');
    await expect(
      fixture.engine.approveAction({ actionId: action.id, operator: fixture.operator }),
    ).rejects.toMatchObject({
      code: 'action_not_pending',
    });
    expect(fixture.executions.hal_incident_open ?? 0).toBe(0);
  });

  it('reset right after a post clears everything the post stored, its placeholder too', async () => {
    for (const busy of [false, true]) {
      const fixture = await createRoomFixture({
        participants: ['a', 'b'].map((id) => ({
          id,
          name: id.toUpperCase(),
          steps: [textReply(`${id} here`)],
        })),
      });
      // A slow disk for the streaming placeholder: it is still being written when the reset comes.
      const append = fixture.store.appendMessage.bind(fixture.store);
      vi.spyOn(fixture.store, 'appendMessage').mockImplementation(async (message) => {
        if (message.role === 'assistant') await new Promise((resolve) => setTimeout(resolve, 20));
        return append(message);
      });
      const roomId = fixture.directRoom('a').id;
      const posts = [fixture.engine.postMessage({ roomId, operator: fixture.operator, text: 'hi' })];
      // Another panel's post keeps the line busy, so this room's stores wait for it.
      if (busy) {
        posts.push(
          fixture.engine.postMessage({
            roomId: fixture.directRoom('b').id,
            operator: fixture.operator,
            text: 'hi',
          }),
        );
      }
      await posts[0];
      await fixture.engine.resetRoom(roomId);
      await Promise.all(posts);
      await fixture.engine.idle();
      expect(await fixture.store.listMessages(roomId)).toEqual([]);
    }
  });

  it('recoverInterrupted marks running turns, streaming messages and executing actions', async () => {
    const fixture = await createRoomFixture({ participants: [{ id: 'claude', name: 'Claude' }] });
    const roomId = fixture.directRoom('claude').id;
    const at = new Date().toISOString();
    await fixture.store.createTurn({
      id: 't-old',
      roomId,
      connectionId: 'claude',
      status: 'running',
      relayDepth: 0,
      relayedFrom: null,
      triggerMessageId: null,
      error: null,
      createdAt: at,
      updatedAt: at,
    });
    await fixture.store.appendMessage({
      id: 'm-old',
      roomId,
      role: 'assistant',
      connectionId: 'claude',
      model: 'm',
      content: [],
      status: 'streaming',
      error: null,
      relayDepth: 0,
      relayedFrom: null,
      usage: null,
      createdAt: at,
    });
    await fixture.store.createAction({
      id: 'a-old',
      roomId,
      connectionId: 'claude',
      source: 'model',
      tool: 'hal_incident_open',
      args: { key: 'K', title: 't' },
      risk: 'write',
      identifiers: [],
      status: 'executing',
      createdAt: at,
      decidedBy: 'admin',
      decidedAt: at,
      result: null,
      error: null,
      argsCanonical: '{"key":"K","title":"t"}',
      argsHash: '0'.repeat(64),
      expiresAt: null,
      toolCallId: 'c',
      turnId: 't-old',
      clientName: null,
      reason: null,
      tainted: false,
    });
    // What a live process still works on is kept: nothing changes.
    expect(await fixture.engine.recoverInterrupted({ keep: () => true })).toEqual({
      turns: 0,
      messages: 0,
      actions: 0,
    });
    expect(await fixture.store.getTurn('t-old')).toMatchObject({ status: 'running' });
    expect(await fixture.store.getMessage('m-old')).toMatchObject({ status: 'streaming' });
    expect(await fixture.store.getAction('a-old')).toMatchObject({ status: 'executing' });
    const counts = await fixture.engine.recoverInterrupted();
    expect(counts).toEqual({ turns: 1, messages: 1, actions: 1 });
    expect(await fixture.store.getAction('a-old')).toMatchObject({
      status: 'failed',
      error: { code: 'interrupted' },
    });
    expect(await fixture.store.getTurn('t-old')).toMatchObject({
      status: 'interrupted',
      error: { code: 'interrupted' },
    });
    expect(await fixture.store.getMessage('m-old')).toMatchObject({
      status: 'failed',
      error: { code: 'interrupted' },
    });
    expect(await fixture.store.listTurns({ status: 'running' })).toEqual([]);
    expect(fixture.audits).toContainEqual(
      expect.objectContaining({ action: 'ai.turn.failed', actor: 'ai:claude', target: 'turn:t-old' }),
    );
  });

  it('cancelTurnsOf stops a running turn', async () => {
    const never = new Promise(() => undefined);
    const fixture = await createRoomFixture({
      participants: [
        {
          id: 'claude',
          name: 'Claude',
          steps: [{ parts: textReply('never finishes'), gate: never, gateAfter: 3 }],
        },
      ],
    });
    const roomId = fixture.directRoom('claude').id;
    const { turns } = await fixture.engine.postMessage({ roomId, operator: fixture.operator, text: 'x' });
    // Wait until the stream is stuck on its gate (the first delta arrived): only the engine's own
    // abort handling can end the turn now.
    await new Promise<void>((resolve) => {
      const subscription = fixture.events.subscribe(roomId, {}, ({ event }) => {
        if (event.type !== 'delta') return;
        subscription.unsubscribe();
        resolve();
      });
    });
    expect(fixture.engine.cancelTurnsOf('claude')).toBe(1);
    await fixture.engine.idle();
    const reply = (await fixture.store.listMessages(roomId)).find((message) => message.role === 'assistant');
    expect(reply).toMatchObject({ status: 'incomplete', error: { code: 'interrupted' } });
    expect((await fixture.store.getTurn(turns[0]?.turnId ?? ''))?.status).toBe('cancelled');
  }, 10_000);
});

describe('turns of another process on the same store', () => {
  const stuckSteps = () => [
    { parts: textReply('never finishes'), gate: new Promise(() => undefined), gateAfter: 3 },
  ];
  const firstDelta = (fixture: Awaited<ReturnType<typeof createRoomFixture>>, roomId: string) =>
    new Promise<void>((resolve) => {
      const subscription = fixture.events.subscribe(roomId, {}, ({ event }) => {
        if (event.type !== 'delta') return;
        subscription.unsubscribe();
        resolve();
      });
    });

  it('cancelTurnsIn stops the running turns of one room and leaves the others', async () => {
    const fixture = await createRoomFixture({
      participants: ['a', 'b'].map((id) => ({ id, name: id.toUpperCase(), steps: stuckSteps() })),
    });
    const [roomA, roomB] = [fixture.directRoom('a').id, fixture.directRoom('b').id];
    const streaming = [firstDelta(fixture, roomA), firstDelta(fixture, roomB)];
    const posted = await Promise.all(
      [roomA, roomB].map((roomId) =>
        fixture.engine.postMessage({ roomId, operator: fixture.operator, text: 'x' }),
      ),
    );
    await Promise.all(streaming);
    expect(fixture.engine.cancelTurnsIn(roomA)).toBe(1);
    await vi.waitFor(async () =>
      expect((await fixture.store.getTurn(posted[0]?.turns[0]?.turnId ?? ''))?.status).toBe('cancelled'),
    );
    expect((await fixture.store.getTurn(posted[1]?.turns[0]?.turnId ?? ''))?.status).toBe('running');
    expect(fixture.engine.cancelTurnsIn(roomB)).toBe(1);
    await fixture.engine.idle();
  }, 10_000);

  it('/reset asks the other process to stop the room’s turns and clears only after their last writes', async () => {
    const store = createMemoryRoomStore();
    const running = await createRoomFixture({
      store,
      idPrefix: 'a_',
      participants: [{ id: 'claude', name: 'Claude', steps: stuckSteps() }],
    });
    const asked: unknown[] = [];
    const resetting = await createRoomFixture({
      store,
      idPrefix: 'b_',
      participants: [{ id: 'claude', name: 'Claude' }],
      // What HAL does across instances, in one process: the running engine stops the turns, and the ask resolves
      // once they ended.
      remoteTurns: {
        async stop(scope) {
          asked.push(scope);
          if (scope.roomId) running.engine.cancelTurnsIn(scope.roomId);
          await running.engine.idle();
        },
      },
    });
    const roomId = running.directRoom('claude').id;
    expect(resetting.directRoom('claude').id).toBe(roomId);
    const streaming = firstDelta(running, roomId);
    const { turns } = await running.engine.postMessage({ roomId, operator: running.operator, text: 'x' });
    await streaming;
    await resetting.engine.postMessage({ roomId, operator: resetting.operator, text: '/reset' });
    expect(asked).toEqual([{ roomId }]);
    expect((await store.getTurn(turns[0]?.turnId ?? ''))?.status).toBe('cancelled');
    // The cancelled placeholder was stored before the history was cleared: only the reset and its note are left.
    expect((await store.listMessages(roomId)).map((message) => message.role)).toEqual(['user', 'system']);
  }, 10_000);
});

describe('slash commands through postMessage', () => {
  it('expands a prompt command for the model while the history keeps the original text', async () => {
    const fixture = await createRoomFixture({
      participants: [{ id: 'claude', name: 'Claude', steps: [textReply('ok')] }],
    });
    const roomId = fixture.directRoom('claude').id;
    const { message } = await fixture.engine.postMessage({
      roomId,
      operator: fixture.operator,
      text: '/jobs failed',
    });
    expect(message.content[0]).toEqual({ type: 'text', text: '/jobs failed' });
    expect(message.content[1]).toMatchObject({ type: 'command', command: 'jobs', args: ['failed'] });
    await fixture.engine.idle();
    const prompt = promptText(fixture.model('claude').calls[0] as never);
    expect(prompt).toContain('hal_jobs_list');
    expect(prompt).toContain('(state \\"failed\\")');
  });

  it('runs local commands without a model call', async () => {
    const fixture = await createRoomFixture({
      participants: [{ id: 'claude', name: 'Claude', steps: [textReply('x')] }],
    });
    const roomId = fixture.directRoom('claude').id;
    const help = await fixture.engine.postMessage({ roomId, operator: fixture.operator, text: '/help' });
    expect(help.turns).toEqual([]);
    expect(help.note?.content[0]).toMatchObject({ type: 'note', code: 'command_help' });
    const tools = await fixture.engine.postMessage({ roomId, operator: fixture.operator, text: '/tools' });
    expect(tools.note?.content[0]).toMatchObject({
      text: expect.stringContaining('hal_server_isolate (high)'),
    });
    await fixture.engine.postMessage({ roomId, operator: fixture.operator, text: '/reset' });
    expect((await fixture.store.listMessages(roomId)).map((entry) => entry.role)).toEqual(['user', 'system']);
    await fixture.engine.idle();
    expect(fixture.model('claude').calls).toHaveLength(0);
  });

  it.each([
    ['/nope', 'unknown_command'],
    ['/server', 'command_args_required'],
    ['/model gpt-5', 'command_needs_direct_room'],
  ])('%j in the unified room → %s', async (text, code) => {
    const fixture = await createRoomFixture({ participants: [{ id: 'claude', name: 'Claude' }] });
    await expect(
      fixture.engine.postMessage({ roomId: fixture.unified.id, operator: fixture.operator, text }),
    ).rejects.toMatchObject({
      code,
      status: 400,
    });
    expect(await fixture.store.listMessages(fixture.unified.id)).toEqual([]);
  });
});
