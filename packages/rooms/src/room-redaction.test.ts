import { randomBytes } from 'node:crypto';
import { argsHash } from '@hal-ai/tools';
import { describe, expect, it } from 'vitest';
import { createRoomFixture, promptText } from './testing/room-fixture.test-support.js';
import { textReply, toolCallReply } from './testing/scripted-language-model.js';

/** A host redaction as HAL's vault does it, for one secret (the rooms never see the vault). */
function redactorOf(secret: string) {
  return <T>(value: T): T =>
    value === undefined ? value : (JSON.parse(JSON.stringify(value).replaceAll(secret, '[redacted]')) as T);
}

describe('the redaction boundary of the rooms', () => {
  it('takes a secret out of the operator message, model replies, tool calls, results, proposals, events, audit and every prompt', async () => {
    const secret = `sk-canary-${randomBytes(16).toString('hex')}`;
    const steps = [
      toolCallReply(
        [{ toolName: 'hal_servers_list', input: { role: secret }, toolCallId: 'r1' }],
        `Echoing your key ${secret} back. `,
      ),
      toolCallReply(
        [
          {
            toolName: 'hal_incident_open',
            input: { key: 'INC-1', title: `leaked ${secret}` },
            toolCallId: 'w1',
          },
        ],
        'Proposing. ',
      ),
      textReply('done'),
    ];
    const fixture = await createRoomFixture({
      participants: [{ id: 'claude', name: 'Claude', steps }],
      redact: redactorOf(secret),
    });
    const roomId = fixture.directRoom('claude').id;
    const posted = await fixture.engine.postMessage({
      roomId,
      operator: fixture.operator,
      text: `here is the key: ${secret}`,
      context: { page: { url: `/ops/servers?token=${secret}`, title: 'Servers' } },
    });
    await fixture.engine.idle();

    const messages = await fixture.store.listMessages(roomId);
    const actions = await fixture.store.listActions(roomId);
    expect(messages.length).toBeGreaterThanOrEqual(4);
    expect(actions).toHaveLength(1);
    const everything = JSON.stringify({
      posted,
      messages,
      actions,
      events: fixture.seen,
      audits: fixture.audits,
      prompts: fixture.model('claude').calls.map((call) => promptText(call)),
    });
    expect(everything).not.toContain(secret);
    expect(everything).toContain('[redacted]');
    // The proposal's hash is of the arguments it stores, so approval's re-check still holds.
    const [action] = actions;
    expect(action?.args).toEqual({ key: 'INC-1', title: 'leaked [redacted]' });
    expect(action?.argsHash).toBe(argsHash(action?.args));
  });

  it('redacts on the way to the model what was stored before the host knew the secret', async () => {
    const secret = `sk-late-${randomBytes(16).toString('hex')}`;
    let known = false;
    const redact = <T>(value: T): T => (known ? redactorOf(secret)(value) : value);
    const fixture = await createRoomFixture({
      participants: [{ id: 'claude', name: 'Claude', steps: [textReply('ok'), textReply('ok again')] }],
      redact,
    });
    const roomId = fixture.directRoom('claude').id;
    await fixture.engine.postMessage({ roomId, operator: fixture.operator, text: `old paste ${secret}` });
    await fixture.engine.idle();
    known = true;
    await fixture.engine.postMessage({ roomId, operator: fixture.operator, text: 'and now?' });
    await fixture.engine.idle();
    const calls = fixture.model('claude').calls;
    expect(promptText(calls[0] as never)).toContain(secret);
    expect(promptText(calls[1] as never)).not.toContain(secret);
  });

  it('a tool precheck refuses before a proposal is stored: from a model turn and from an MCP client', async () => {
    const key = `sk-${randomBytes(16).toString('hex')}`;
    const steps = [
      toolCallReply([
        { toolName: 'hal_config_set', input: { key: 'alerts.url', value: key }, toolCallId: 'h1' },
      ]),
      textReply('understood'),
    ];
    const fixture = await createRoomFixture({ participants: [{ id: 'claude', name: 'Claude', steps }] });
    const roomId = fixture.directRoom('claude').id;
    await fixture.engine.postMessage({ roomId, operator: fixture.operator, text: 'set it' });
    await fixture.engine.idle();
    expect(await fixture.store.listActions(roomId)).toEqual([]);
    const tool = (await fixture.store.listMessages(roomId)).find((message) => message.role === 'tool');
    expect(tool?.content[0]).toMatchObject({
      isError: true,
      output: { error: { code: 'secret_not_allowed' } },
    });
    await expect(
      fixture.engine.createExternalProposal({
        tool: 'hal_config_set',
        args: { key: 'alerts.url', value: key },
        source: 'mcp',
        clientName: 'probe',
      }),
    ).rejects.toMatchObject({ code: 'secret_not_allowed' });
    expect(await fixture.store.listActions(fixture.unified.id)).toEqual([]);
    expect(fixture.executions.hal_config_set ?? 0).toBe(0);
    // A harmless value is still proposed.
    const action = await fixture.engine.createExternalProposal({
      tool: 'hal_config_set',
      args: { key: 'alerts.url', value: 'https://alerts.example' },
      source: 'mcp',
      clientName: 'probe',
    });
    expect(action.status).toBe('proposed');
  });
});

describe('the redaction of streamed deltas', () => {
  it('redacts a secret that a model streams across several deltas, and sends the held tail before the message', async () => {
    const { createRoomEventHub } = await import('./room-events.js');
    const { createRedactingEventHub } = await import('./room-redaction.js');
    const secret = `sk-split-${randomBytes(12).toString('hex')}`;
    // The host's "could this tail begin the secret?", as HAL's vault answers it for one spelling.
    const heldLength = (text: string) => {
      for (let length = Math.min(secret.length - 1, text.length); length > 0; length--)
        if (secret.startsWith(text.slice(text.length - length))) return length;
      return 0;
    };
    const inner = createRoomEventHub();
    const events = createRedactingEventHub(inner, redactorOf(secret), heldLength);
    const seen: string[] = [];
    inner.subscribe('room', {}, (envelope) => {
      const event = envelope.event;
      if (event.type === 'delta') seen.push(event.text);
      if (event.type === 'message') seen.push('<message>');
    });
    const text = `my key is ${secret}, and ${secret.slice(0, 7)}`;
    for (let at = 0; at < text.length; at += 5) {
      events.publish('room', {
        type: 'delta',
        messageId: 'm1',
        connectionId: 'c',
        text: text.slice(at, at + 5),
      });
    }
    events.publish('room', {
      type: 'message',
      message: { id: 'm1' } as never,
    });
    const streamed = seen.slice(0, -1).join('');
    expect(streamed).not.toContain(secret);
    expect(streamed).toBe(`my key is [redacted], and ${secret.slice(0, 7)}`);
    // The last partial (the secret's first 7 characters, which never completed) goes out just before the message.
    expect(seen.at(-1)).toBe('<message>');
    // Without the held tail, the pieces each pass the redaction and the whole secret reaches the stream.
    const plain: string[] = [];
    const bare = createRoomEventHub();
    bare.subscribe('room', {}, (envelope) => {
      if (envelope.event.type === 'delta') plain.push(envelope.event.text);
    });
    const unheld = createRedactingEventHub(bare, redactorOf(secret));
    for (let at = 0; at < text.length; at += 5) {
      unheld.publish('room', {
        type: 'delta',
        messageId: 'm1',
        connectionId: 'c',
        text: text.slice(at, at + 5),
      });
    }
    expect(plain.join('')).toContain(secret);
  });
});
