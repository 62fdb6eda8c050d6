import { randomBytes } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFakeAnthropic } from './fake-anthropic.js';
import type { FakeServer } from './fake-server.js';

// The official SDK is the oracle: if its accumulators and error classes accept the fake, the fake speaks the wire format.
describe('createFakeAnthropic with the official SDK', () => {
  let fake: FakeServer;
  let client: Anthropic;
  const apiKey = `test-${randomBytes(12).toString('hex')}`;

  beforeEach(async () => {
    fake = await createFakeAnthropic({
      apiKey,
      models: [{ id: 'claude-a' }, { id: 'claude-b' }, { id: 'claude-c', displayName: 'Claude C' }],
    });
    client = new Anthropic({ apiKey, baseURL: fake.url, maxRetries: 0 });
  });
  afterEach(() => fake.close());

  it('streams text that finalMessage reassembles, with usage', async () => {
    fake.enqueue({ text: 'Hello there, operator.', chunks: 4, usage: { inputTokens: 12, outputTokens: 5 } });
    const message = await client.messages
      .stream({ model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage();
    expect(message.content).toMatchObject([{ type: 'text', text: 'Hello there, operator.' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ input_tokens: 12, output_tokens: 5 });
    expect(message.model).toBe('claude-x');
  });

  it('streams tool input in pieces that the SDK reassembles', async () => {
    fake.enqueue({ text: 'Checking.', toolCall: { name: 'lookup', input: { city: 'Seoul', days: [1, 2] } } });
    const message = await client.messages
      .stream({ model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'weather?' }] })
      .finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content[1]).toMatchObject({
      type: 'tool_use',
      name: 'lookup',
      input: { city: 'Seoul', days: [1, 2] },
    });
  });

  it('answers non-streaming requests', async () => {
    fake.enqueue({ text: 'plain' });
    const message = await client.messages.create({
      model: 'claude-x',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'plain' }]);
  });

  it('maps 401, 429 and 529 onto the SDK error classes', async () => {
    const bad = new Anthropic({ apiKey: 'wrong', baseURL: fake.url, maxRetries: 0 });
    await expect(
      bad.messages.create({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    fake.enqueue({ error: { status: 429, retryAfter: 3 } }, { error: { status: 529 } });
    const params = { model: 'm', max_tokens: 1, messages: [{ role: 'user' as const, content: 'x' }] };
    await expect(client.messages.create(params)).rejects.toBeInstanceOf(Anthropic.RateLimitError);
    await expect(client.messages.create(params)).rejects.toBeInstanceOf(Anthropic.OverloadedError);
  });

  it('surfaces an in-stream overloaded error event', async () => {
    fake.enqueue({ text: 'part', streamError: 'overloaded' });
    const stream = client.messages.stream({
      model: 'm',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'x' }],
    });
    await expect(stream.finalMessage()).rejects.toThrow(/Overloaded/);
  });

  it('pages the model list', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list({ limit: 2 })) ids.push(model.id);
    expect(ids).toEqual(['claude-a', 'claude-b', 'claude-c']);
  });

  it('accepts what the Claude Code CLI sends: HEAD /, ?beta=true, system-role items, extra fields', async () => {
    const head = await fetch(`${fake.url}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    fake.enqueue({ text: 'ok' });
    const response = await fetch(`${fake.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({
        model: 'claude-x',
        max_tokens: 5,
        stream: true,
        metadata: { user_id: 'u' },
        thinking: { type: 'disabled' },
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] },
        ],
      }),
    });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).toContain('event: message_stop');
    expect(fake.requests.at(-1)).toMatchObject({ path: '/v1/messages', query: { beta: 'true' } });
  });
});

describe('createFakeAnthropic with thinking, as the Messages API requires it (official SDK as the client)', () => {
  let fake: FakeServer;
  let client: Anthropic;
  const apiKey = `test-${randomBytes(12).toString('hex')}`;
  const thinking = { type: 'enabled' as const, budget_tokens: 1024 };
  const tools = [{ name: 'lookup', input_schema: { type: 'object' as const, properties: {} } }];

  beforeEach(async () => {
    fake = await createFakeAnthropic({ apiKey });
    client = new Anthropic({ apiKey, baseURL: fake.url, maxRetries: 0 });
  });
  afterEach(() => fake.close());

  async function toolStep() {
    fake.enqueue({
      reasoning: 'Need the weather tool.',
      toolCall: { name: 'lookup', input: { city: 'Seoul' } },
    });
    return client.messages
      .stream({
        model: 'claude-x',
        max_tokens: 2048,
        thinking,
        tools,
        messages: [{ role: 'user', content: 'weather?' }],
      })
      .finalMessage();
  }

  const send = (messages: Anthropic.MessageParam[]) =>
    client.messages.create({ model: 'claude-x', max_tokens: 2048, thinking, tools, messages });

  function continuation(content: Anthropic.ContentBlockParam[], toolUseId: string): Anthropic.MessageParam[] {
    return [
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: 'clear' }] },
    ];
  }

  it('streams a signed thinking block first, which the SDK reassembles, and accepts it sent back', async () => {
    const message = await toolStep();
    expect(message.content[0]).toEqual({
      type: 'thinking',
      thinking: 'Need the weather tool.',
      signature: expect.stringMatching(/^[A-Za-z0-9+/=]{64,}$/),
    });
    const call = message.content[1] as Anthropic.ToolUseBlock;
    fake.enqueue({ text: 'Clear.' });
    const next = await send(continuation(message.content as Anthropic.ContentBlockParam[], call.id));
    expect(next.content.map((block) => block.type)).toEqual(['thinking', 'text']);
  });

  it('refuses a tool-loop continuation without the thinking block, or with a changed one', async () => {
    const message = await toolStep();
    const call = message.content[1] as Anthropic.ToolUseBlock;
    const withoutThinking = send(continuation([call], call.id));
    await expect(withoutThinking).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    await expect(withoutThinking).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('a final `assistant` message must start with a thinking block'),
    });
    const changed = { ...(message.content[0] as Anthropic.ThinkingBlock), thinking: 'Something else.' };
    await expect(send(continuation([changed, call], call.id))).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('Invalid `signature`'),
    });
  });

  it('answers a redacted thinking block that goes back as it came', async () => {
    fake.enqueue({ reasoning: { redacted: true }, toolCall: { name: 'lookup', input: {} } });
    const message = await client.messages.create({
      model: 'claude-x',
      max_tokens: 2048,
      thinking,
      tools,
      messages: [{ role: 'user', content: 'weather?' }],
    });
    expect(message.content[0]).toEqual({ type: 'redacted_thinking', data: expect.any(String) });
    const call = message.content[1] as Anthropic.ToolUseBlock;
    fake.enqueue({ text: 'ok' });
    await expect(
      send(continuation(message.content as Anthropic.ContentBlockParam[], call.id)),
    ).resolves.toMatchObject({ type: 'message' });
  });

  it('checks the budget, max_tokens, temperature and tool choice', async () => {
    const ask = (extra: Record<string, unknown>) =>
      client.messages.create({
        model: 'claude-x',
        max_tokens: 2048,
        messages: [{ role: 'user', content: 'hi' }],
        thinking,
        ...extra,
      } as unknown as Anthropic.MessageCreateParamsNonStreaming);
    await expect(ask({ thinking: { type: 'enabled', budget_tokens: 512 } })).rejects.toMatchObject({
      status: 400,
    });
    await expect(ask({ max_tokens: 1024 })).rejects.toMatchObject({
      message: expect.stringContaining('must be greater than `thinking.budget_tokens`'),
    });
    await expect(ask({ temperature: 0.2 })).rejects.toMatchObject({ status: 400 });
    await expect(ask({ tools, tool_choice: { type: 'any' } })).rejects.toMatchObject({ status: 400 });
    expect(fake.requests).toHaveLength(4);
  });
});
