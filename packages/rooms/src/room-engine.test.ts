import { HalError, type RoomMessage } from '@hal-ai/spec';
import { describe, expect, it, vi } from 'vitest';
import { createRoomFixture, promptText } from './testing/room-fixture.test-support.js';
import { textReply, toolCallReply } from './testing/scripted-language-model.js';

const trio = () => [
  {
    id: 'claude',
    name: 'Claude',
    role: 'SRE lead',
    traits: 'careful',
    instructions: 'answer in Korean',
    steps: [textReply('claude here')],
  },
  { id: 'gpt', name: 'GPT', role: 'analyst', steps: [textReply('gpt here')] },
  { id: 'gemini', name: '제미니', role: 'reviewer', steps: [textReply('gemini here')] },
];

const texts = (messages: RoomMessage[]) =>
  messages.map((message) =>
    message.content
      .map((block) => (block.type === 'text' || block.type === 'note' ? block.text : `<${block.type}>`))
      .join(''),
  );

/** A model step that logs `build <name>` when its request is built. */
const sendingStep = (log: string[], name: string) => () => {
  log.push(`build ${name}`);
  return textReply(`${name} here`);
};

describe('postMessage in the unified room', () => {
  it('broadcasts to every active participant and returns the turns at once', async () => {
    const fixture = await createRoomFixture({
      participants: [...trio(), { id: 'off', name: 'Sleeper', active: false }],
    });
    const result = await fixture.engine.postMessage({
      roomId: fixture.unified.id,
      operator: fixture.operator,
      text: 'status?',
    });
    expect(result.message).toMatchObject({
      role: 'user',
      seq: 1,
      content: [{ type: 'text', text: 'status?' }],
    });
    expect(result.turns.map((turn) => turn.connectionId)).toEqual(['claude', 'gpt', 'gemini']);
    await fixture.engine.idle();
    const messages = await fixture.store.listMessages(fixture.unified.id);
    const replies = messages.filter((message) => message.role === 'assistant');
    expect(replies.map((message) => message.connectionId).sort()).toEqual(['claude', 'gemini', 'gpt']);
    expect(replies.every((message) => message.status === 'complete')).toBe(true);
    expect(replies.find((message) => message.connectionId === 'gpt')).toMatchObject({
      model: 'gpt-model',
      usage: null,
      relayDepth: 0,
    });
    expect(fixture.model('off').calls).toHaveLength(0);
  });

  it('stores the message and its turns before any model request leaves, and answers with the stored message', async () => {
    const log: string[] = [];
    const sending = (name: string) => sendingStep(log, name);
    const fixture = await createRoomFixture({
      participants: ['a', 'b'].map((id) => ({ id, name: id.toUpperCase(), steps: [sending(id)] })),
    });
    const append = fixture.store.appendMessage.bind(fixture.store);
    vi.spyOn(fixture.store, 'appendMessage').mockImplementation((message) => {
      log.push(`store ${message.connectionId ?? 'operator'} ${message.role}`);
      return append(message);
    });
    const createTurn = fixture.store.createTurn.bind(fixture.store);
    vi.spyOn(fixture.store, 'createTurn').mockImplementation((turn) => {
      log.push(`turn ${turn.connectionId}`);
      return createTurn(turn);
    });
    const result = await fixture.engine.postMessage({
      roomId: fixture.unified.id,
      operator: fixture.operator,
      text: 'all?',
    });
    expect(result.message).toMatchObject({ seq: 1, role: 'user' });
    expect(log.slice(0, 3)).toEqual(['store operator user', 'turn a', 'turn b']);
    await fixture.engine.idle();
    // Each model is called only after its streaming placeholder is stored.
    for (const name of ['a', 'b']) {
      expect(log.indexOf(`store ${name} assistant`)).toBeLessThan(log.indexOf(`build ${name}`));
    }
  });

  it('includes an earlier post of the same tick in the next prompt of its room', async () => {
    const fixture = await createRoomFixture({
      participants: [{ id: 'a', name: 'A', steps: [textReply('one'), textReply('two')] }],
    });
    const room = fixture.directRoom('a').id;
    // Both posts in one tick: the second's turn still sees the first message.
    await Promise.all(
      ['first', 'second'].map((text) =>
        fixture.engine.postMessage({ roomId: room, operator: fixture.operator, text }),
      ),
    );
    await fixture.engine.idle();
    const [, second] = fixture.model('a').calls;
    expect(promptText(second as Parameters<typeof promptText>[0])).toContain('first');
    expect(promptText(second as Parameters<typeof promptText>[0])).toContain('second');
    expect(
      (await fixture.store.listMessages(room)).filter((m) => m.role === 'user').map((m) => m.seq),
    ).toEqual([1, 2]);
  });

  it('fails the post and calls no model when its message cannot be stored', async () => {
    const fixture = await createRoomFixture({
      participants: [{ id: 'a', name: 'A', steps: [textReply('never read')] }],
    });
    vi.spyOn(fixture.store, 'appendMessage').mockRejectedValueOnce(new Error('disk full'));
    const room = fixture.directRoom('a').id;
    const published = fixture.seen.length;
    await expect(
      fixture.engine.postMessage({ roomId: room, operator: fixture.operator, text: 'hi' }),
    ).rejects.toThrow('disk full');
    await fixture.engine.idle();
    expect(fixture.model('a').calls).toHaveLength(0);
    expect(await fixture.store.listMessages(room)).toEqual([]);
    expect(await fixture.store.listTurns({ status: 'running' })).toEqual([]);
    expect(fixture.seen.slice(published)).toEqual([]);
  });

  it('reads the history once per post for all its turns, with the stored message in it', async () => {
    const seen: Array<{ name: string; stored: number }> = [];
    let fixture: Awaited<ReturnType<typeof createRoomFixture>> | undefined;
    const noting = (name: string) => () => {
      // What the room holds when the model is called: the operator's message and the placeholders.
      const messages = fixture?.store.listMessages(fixture.unified.id);
      void Promise.resolve(messages).then((list) =>
        seen.push({ name, stored: list?.filter((m) => m.role === 'user').length ?? -1 }),
      );
      return textReply(`${name} here`);
    };
    fixture = await createRoomFixture({
      participants: [
        { id: 'a', name: 'A', steps: [noting('a')] },
        { id: 'b', name: 'B', steps: [noting('b')] },
      ],
    });
    const reads = vi.spyOn(fixture.store, 'listMessages');
    await fixture.engine.postMessage({
      roomId: fixture.unified.id,
      operator: fixture.operator,
      text: 'all?',
    });
    await fixture.engine.idle();
    // One read for both turns' prompts (the spy also counts the two reads made by the models above).
    expect(reads.mock.calls.filter(([, options]) => options?.limit !== undefined)).toHaveLength(1);
    expect(seen.find((entry) => entry.name === 'a')?.stored).toBe(1);
    expect(promptText(fixture.model('a').calls[0] as Parameters<typeof promptText>[0])).toContain('all?');
    const replies = (await fixture.store.listMessages(fixture.unified.id)).filter(
      (m) => m.role === 'assistant',
    );
    expect(replies.map((m) => [m.connectionId, m.status, texts([m])[0]])).toEqual([
      ['a', 'complete', 'a here'],
      ['b', 'complete', 'b here'],
    ]);
  });

  it('lists the participants once per post: its turns share that read', async () => {
    const fixture = await createRoomFixture({ participants: trio() });
    await fixture.engine.postMessage({
      roomId: fixture.unified.id,
      operator: fixture.operator,
      text: 'all?',
    });
    await fixture.engine.idle();
    expect(fixture.lookups.list).toBe(1);
    expect(fixture.lookups.resolve).toBe(3);
    expect(promptText(fixture.model('gemini').calls[0]!)).toContain('GPT');
  });

  it('addresses only the named participants', async () => {
    const fixture = await createRoomFixture({ participants: trio() });
    const result = await fixture.engine.postMessage({
      roomId: fixture.unified.id,
      operator: fixture.operator,
      text: '@제미니 and gpt are not both called here',
    });
    expect(result.turns.map((turn) => turn.connectionId)).toEqual(['gemini']);
    const leading = await fixture.engine.postMessage({
      roomId: fixture.unified.id,
      operator: fixture.operator,
      text: 'GPT, Claude: compare',
    });
    expect(leading.turns.map((turn) => turn.connectionId)).toEqual(['gpt', 'claude']);
    await fixture.engine.idle();
    expect(fixture.model('gemini').calls).toHaveLength(1);
  });

  it('refuses an unknown @name with the participant list and stores nothing', async () => {
    const fixture = await createRoomFixture({ participants: trio() });
    const attempt = fixture.engine.postMessage({
      roomId: fixture.unified.id,
      operator: fixture.operator,
      text: '@bob hi',
    });
    await expect(attempt).rejects.toMatchObject({
      code: 'unknown_addressee',
      status: 400,
      details: { participants: ['Claude', 'GPT', '제미니'] },
    });
    expect(await fixture.store.listMessages(fixture.unified.id)).toEqual([]);
  });

  it('answers 409 connection_inactive when an addressed model is disabled', async () => {
    const fixture = await createRoomFixture({
      participants: [...trio(), { id: 'off', name: 'Sleeper', active: false }],
    });
    await expect(
      fixture.engine.postMessage({
        roomId: fixture.unified.id,
        operator: fixture.operator,
        text: '@Sleeper @GPT wake up',
      }),
    ).rejects.toMatchObject({ code: 'connection_inactive', status: 409 });
    await expect(
      fixture.engine.postMessage({
        roomId: fixture.directRoom('off').id,
        operator: fixture.operator,
        text: 'hi',
      }),
    ).rejects.toMatchObject({ code: 'connection_inactive', status: 409 });
    expect(fixture.model('gpt').calls).toHaveLength(0);
  });

  it("puts the skill, the model's identity, the participant list, the operator and the page in each system prompt", async () => {
    const fixture = await createRoomFixture({
      participants: [...trio(), { id: 'off', name: 'Sleeper', active: false }],
      skill: '# HAL skill v1',
    });
    await fixture.engine.postMessage({
      roomId: fixture.unified.id,
      operator: fixture.operator,
      text: 'hello',
      context: { page: { url: '/ops/servers', title: 'Servers' } },
    });
    await fixture.engine.idle();
    const system = (id: string) => {
      const first = fixture.model(id).calls[0]?.prompt[0];
      return first?.role === 'system' ? first.content : '';
    };
    expect(system('claude')).toContain('# HAL skill v1');
    expect(system('claude')).toContain('name: Claude');
    expect(system('claude')).toContain('role: SRE lead');
    expect(system('claude')).toContain('traits: careful');
    expect(system('claude')).toContain('answer in Korean');
    expect(system('gpt')).toContain('name: GPT');
    expect(system('gpt')).toContain('role: analyst');
    for (const id of ['claude', 'gpt', 'gemini']) {
      expect(system(id)).toContain('- Claude (active');
      expect(system(id)).toContain('- 제미니 (active');
      expect(system(id)).toContain('- Sleeper (inactive)');
      expect(system(id)).toContain('operator: admin');
      expect(system(id)).toContain('Servers — /ops/servers');
      expect(system(id)).toContain('`@name`');
    }
  });

  it('builds a new system prompt when what it shows changes (identity, page, who is active)', async () => {
    const fixture = await createRoomFixture({ participants: trio() });
    const post = async (page: string) => {
      await fixture.engine.postMessage({
        roomId: fixture.unified.id,
        operator: fixture.operator,
        text: '@GPT status?',
        context: { page: { url: page } },
      });
      await fixture.engine.idle();
      const last = fixture.model('gpt').calls.at(-1)?.prompt[0];
      return last?.role === 'system' ? last.content : '';
    };
    const first = await post('/ops/servers');
    expect(await post('/ops/servers')).toBe(first);
    const gpt = fixture.participants.get('gpt');
    if (gpt) gpt.identity = { ...gpt.identity, role: 'incident commander' };
    const claude = fixture.participants.get('claude');
    if (claude) claude.active = false;
    const changed = await post('/ops/incidents');
    expect(changed).toContain('role: incident commander');
    expect(changed).toContain('/ops/incidents');
    expect(changed).toContain('- Claude (inactive)');
  });

  it("runs the models' turns concurrently", async () => {
    let releaseClaude: () => void = () => undefined;
    const claudeGate = new Promise<void>((resolve) => {
      releaseClaude = resolve;
    });
    // Claude cannot finish until GPT has started: sequential turns would never complete.
    const fixture = await createRoomFixture({
      participants: [
        { id: 'claude', name: 'Claude', steps: [{ parts: textReply('first'), gate: claudeGate }] },
        { id: 'gpt', name: 'GPT', steps: [textReply('second')] },
      ],
    });
    await fixture.engine.postMessage({ roomId: fixture.unified.id, operator: fixture.operator, text: 'go' });
    await fixture.model('gpt').started();
    releaseClaude();
    await fixture.engine.idle();
    const replies = (await fixture.store.listMessages(fixture.unified.id)).filter(
      (message) => message.role === 'assistant',
    );
    expect(replies.map((message) => message.status)).toEqual(['complete', 'complete']);
  });

  it('streams text as delta events and persists the message once at the end', async () => {
    const fixture = await createRoomFixture({
      participants: [
        {
          id: 'claude',
          name: 'Claude',
          steps: [textReply('a long streamed answer', { inputTokens: 12, outputTokens: 7 })],
        },
      ],
    });
    await fixture.engine.postMessage({ roomId: fixture.unified.id, operator: fixture.operator, text: 'hi' });
    await fixture.engine.idle();
    const deltas = fixture.seen.filter(({ event }) => event.type === 'delta');
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.map(({ event }) => (event.type === 'delta' ? event.text : '')).join('')).toBe(
      'a long streamed answer',
    );
    const reply = (await fixture.store.listMessages(fixture.unified.id)).find(
      (message) => message.role === 'assistant',
    );
    expect(reply).toMatchObject({
      status: 'complete',
      usage: { inputTokens: 12, outputTokens: 7 },
      connectionId: 'claude',
    });
    const statuses = fixture.seen
      .filter(({ event }) => event.type === 'message' && event.message.id === reply?.id)
      .map(({ event }) => (event.type === 'message' ? event.message.status : ''));
    expect(statuses).toEqual(['streaming', 'complete']);
    const turnStatuses = fixture.seen
      .filter(({ event }) => event.type === 'turn')
      .map(({ event }) => (event.type === 'turn' ? event.status : ''));
    expect(turnStatuses).toEqual(['running', 'complete']);
  });

  it('stores a provider error part as a failed message with its code, never as text', async () => {
    const fixture = await createRoomFixture({
      participants: [
        {
          id: 'claude',
          name: 'Claude',
          steps: [
            [
              { type: 'stream-start' },
              { type: 'error', error: new HalError('provider_rate_limited', 'Rate limited by the provider') },
            ],
          ],
        },
      ],
    });
    await fixture.engine.postMessage({ roomId: fixture.unified.id, operator: fixture.operator, text: 'hi' });
    await fixture.engine.idle();
    const reply = (await fixture.store.listMessages(fixture.unified.id)).find(
      (message) => message.role === 'assistant',
    );
    expect(reply).toMatchObject({
      status: 'failed',
      content: [],
      error: { code: 'provider_rate_limited', message: 'Rate limited by the provider' },
      usage: null,
    });
    expect(fixture.turnErrors).toEqual([
      {
        connectionId: 'claude',
        error: { code: 'provider_rate_limited', message: 'Rate limited by the provider' },
      },
    ]);
    expect(fixture.audits.map((entry) => entry.action)).toEqual(['ai.turn.failed']);
  });

  it('keeps partial text of a cut stream as incomplete with the error', async () => {
    const cut = textReply('partial answer').slice(0, 3);
    const fixture = await createRoomFixture({
      participants: [{ id: 'claude', name: 'Claude', steps: [cut] }],
    });
    await fixture.engine.postMessage({ roomId: fixture.unified.id, operator: fixture.operator, text: 'hi' });
    await fixture.engine.idle();
    const reply = (await fixture.store.listMessages(fixture.unified.id)).find(
      (message) => message.role === 'assistant',
    );
    expect(reply?.status).toBe('incomplete');
    expect(reply?.error?.code).toBe('provider_bad_response');
    expect(texts(reply ? [reply] : [])[0]).toBe('partial ');
  });
});

describe('relay between models', () => {
  it('relays a mention exactly once; a second-level mention only leaves a HAL note', async () => {
    const fixture = await createRoomFixture({
      participants: [
        { id: 'claude', name: 'Claude', steps: [textReply('@GPT can you check the disk? (and @Claude me)')] },
        {
          id: 'gpt',
          name: 'GPT',
          steps: [textReply('Disk is fine. @제미니 please double-check, @Claude fyi')],
        },
        { id: 'gemini', name: '제미니', steps: [textReply('never')] },
        { id: 'off', name: 'Sleeper', active: false },
      ],
    });
    await fixture.engine.postMessage({
      roomId: fixture.unified.id,
      operator: fixture.operator,
      text: '@Claude look at web-1',
    });
    await fixture.engine.idle();
    const messages = await fixture.store.listMessages(fixture.unified.id);
    const claudeReply = messages.find(
      (message) => message.connectionId === 'claude' && message.role === 'assistant',
    );
    const gptReplies = messages.filter(
      (message) => message.connectionId === 'gpt' && message.role === 'assistant',
    );
    expect(gptReplies).toHaveLength(1);
    expect(gptReplies[0]).toMatchObject({ relayDepth: 1, relayedFrom: claudeReply?.id, status: 'complete' });
    expect(fixture.model('claude').calls).toHaveLength(1);
    expect(fixture.model('gemini').calls).toHaveLength(0);
    const note = messages.at(-1);
    expect(note?.role).toBe('system');
    expect(note?.content[0]).toMatchObject({ type: 'note', code: 'relay_limit' });
    expect(texts([note as RoomMessage])[0]).toContain('@제미니');
    expect(texts([note as RoomMessage])[0]).toContain('waits for the operator');
    // GPT's prompt ends with Claude's attributed reply and says who called it.
    const gptPrompt = fixture.model('gpt').calls[0];
    expect(promptText(gptPrompt as never)).toContain('[Claude]: @GPT can you check the disk?');
    expect(promptText(gptPrompt as never)).toContain('Claude called you');
  });

  it('never relays to self or to inactive models', async () => {
    const fixture = await createRoomFixture({
      participants: [
        { id: 'claude', name: 'Claude', steps: [textReply('I, @Claude, ask @Sleeper and @nobody')] },
        { id: 'off', name: 'Sleeper', active: false },
      ],
    });
    await fixture.engine.postMessage({ roomId: fixture.unified.id, operator: fixture.operator, text: 'go' });
    await fixture.engine.idle();
    expect(fixture.model('claude').calls).toHaveLength(1);
    expect(fixture.model('off').calls).toHaveLength(0);
    const messages = await fixture.store.listMessages(fixture.unified.id);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it('gives each mentioning reply one relay and never loops', async () => {
    const fixture = await createRoomFixture({
      participants: [
        { id: 'claude', name: 'Claude', steps: [textReply('@제미니 check A')] },
        { id: 'gpt', name: 'GPT', steps: [textReply('@제미니 check B')] },
        { id: 'gemini', name: '제미니', steps: [textReply('done, @Claude @GPT')] },
      ],
    });
    await fixture.engine.postMessage({
      roomId: fixture.unified.id,
      operator: fixture.operator,
      text: '@Claude @GPT go',
    });
    await fixture.engine.idle();
    expect(fixture.model('gemini').calls).toHaveLength(2);
    expect(fixture.model('claude').calls).toHaveLength(1);
    expect(fixture.model('gpt').calls).toHaveLength(1);
    const notes = (await fixture.store.listMessages(fixture.unified.id)).filter(
      (message) => message.role === 'system',
    );
    expect(notes).toHaveLength(2);
  });

  it('does not relay in a direct room', async () => {
    const fixture = await createRoomFixture({
      participants: [
        { id: 'claude', name: 'Claude', steps: [textReply('@GPT help')] },
        { id: 'gpt', name: 'GPT', steps: [textReply('never')] },
      ],
    });
    await fixture.engine.postMessage({
      roomId: fixture.directRoom('claude').id,
      operator: fixture.operator,
      text: 'hi',
    });
    await fixture.engine.idle();
    expect(fixture.model('gpt').calls).toHaveLength(0);
  });
});

describe('private rooms', () => {
  it("never show another room's messages in the prompt", async () => {
    const fixture = await createRoomFixture({
      participants: [
        {
          id: 'claude',
          name: 'Claude',
          steps: [textReply('unified secret reply'), textReply('direct reply')],
        },
        { id: 'gpt', name: 'GPT', steps: [textReply('gpt private reply')] },
      ],
    });
    await fixture.engine.postMessage({
      roomId: fixture.unified.id,
      operator: fixture.operator,
      text: 'UNIFIED-MARKER',
    });
    await fixture.engine.postMessage({
      roomId: fixture.directRoom('gpt').id,
      operator: fixture.operator,
      text: 'GPT-ROOM-MARKER',
    });
    await fixture.engine.idle();
    await fixture.engine.postMessage({
      roomId: fixture.directRoom('claude').id,
      operator: fixture.operator,
      text: 'CLAUDE-ROOM-MARKER',
    });
    await fixture.engine.idle();
    const directPrompt = promptText(fixture.model('claude').calls[1] as never);
    expect(directPrompt).toContain('CLAUDE-ROOM-MARKER');
    expect(directPrompt).not.toContain('UNIFIED-MARKER');
    expect(directPrompt).not.toContain('unified secret reply');
    expect(directPrompt).not.toContain('GPT-ROOM-MARKER');
    expect(directPrompt).not.toContain('gpt private reply');
    expect(directPrompt).toContain('private room');
  });
});

describe('tools in a turn', () => {
  it('runs a read tool at once and sends its result to the next model call', async () => {
    const fixture = await createRoomFixture({
      participants: [
        {
          id: 'claude',
          name: 'Claude',
          steps: [
            toolCallReply([{ toolName: 'hal_servers_list', input: {}, toolCallId: 'c1' }], 'Let me look. '),
            textReply('web-1 is active'),
          ],
        },
      ],
    });
    await fixture.engine.postMessage({
      roomId: fixture.directRoom('claude').id,
      operator: fixture.operator,
      text: 'servers?',
    });
    await fixture.engine.idle();
    expect(fixture.executions.hal_servers_list).toBe(1);
    const second = fixture.model('claude').calls[1];
    const tail = second?.prompt.slice(-2);
    expect(tail?.[0]).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text' }, { type: 'tool-call', toolCallId: 'c1' }],
    });
    expect(tail?.[1]).toMatchObject({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', output: { servers: [{ name: 'web-1' }] } }],
    });
    expect(fixture.model('claude').calls[0]?.tools?.map((tool) => tool.name)).toEqual([
      'hal_servers_list',
      'hal_incident_open',
      'hal_config_set',
      'hal_server_isolate',
    ]);
    const roles = (await fixture.store.listMessages(fixture.directRoom('claude').id)).map(
      (message) => message.role,
    );
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('stops at the tool-call cap with a HAL note', async () => {
    const fixture = await createRoomFixture({
      toolCallsPerTurn: 3,
      participants: [
        {
          id: 'claude',
          name: 'Claude',
          steps: [() => toolCallReply([{ toolName: 'hal_servers_list', input: {} }])],
        },
      ],
    });
    await fixture.engine.postMessage({
      roomId: fixture.directRoom('claude').id,
      operator: fixture.operator,
      text: 'loop',
    });
    await fixture.engine.idle();
    expect(fixture.executions.hal_servers_list).toBe(3);
    expect(fixture.model('claude').calls).toHaveLength(4);
    const messages = await fixture.store.listMessages(fixture.directRoom('claude').id);
    expect(messages.at(-1)?.content[0]).toMatchObject({ type: 'note', code: 'tool_limit' });
    const lastResult = messages.at(-2)?.content[0];
    expect(lastResult).toMatchObject({ type: 'tool-result', isError: true });
  });

  it('does not execute unknown or disabled tools and returns an error result', async () => {
    const fixture = await createRoomFixture({
      participants: [
        {
          id: 'claude',
          name: 'Claude',
          toolSelection: { preset: 'custom', enabled: ['hal_incident_open'] },
          steps: [
            toolCallReply([
              { toolName: 'hal_servers_list', input: {}, toolCallId: 'a' },
              { toolName: 'rm_rf', input: { path: '/' }, toolCallId: 'b' },
            ]),
            textReply('ok'),
          ],
        },
      ],
    });
    await fixture.engine.postMessage({
      roomId: fixture.directRoom('claude').id,
      operator: fixture.operator,
      text: 'x',
    });
    await fixture.engine.idle();
    expect(fixture.executions.hal_servers_list ?? 0).toBe(0);
    expect(fixture.model('claude').calls[0]?.tools?.map((tool) => tool.name)).toEqual(['hal_incident_open']);
    const results = fixture.model('claude').calls[1]?.prompt.at(-1);
    expect(results).toMatchObject({
      role: 'tool',
      content: [
        { toolCallId: 'a', isError: true, output: { error: { code: 'forbidden' } } },
        { toolCallId: 'b', isError: true, output: { error: { code: 'not_found' } } },
      ],
    });
  });
});
