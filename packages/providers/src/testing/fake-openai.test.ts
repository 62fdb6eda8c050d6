import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFakeOpenAI } from './fake-openai.js';
import type { FakeServer } from './fake-server.js';

describe('createFakeOpenAI with the official SDK', () => {
  let fake: FakeServer;
  let client: OpenAI;
  const apiKey = `test-${randomBytes(12).toString('hex')}`;

  beforeEach(async () => {
    fake = await createFakeOpenAI({ apiKey, models: [{ id: 'gpt-a' }, { id: 'gpt-b' }] });
    client = new OpenAI({ apiKey, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterEach(() => fake.close());

  it('streams text that finalChatCompletion reassembles, with the usage chunk', async () => {
    fake.enqueue({ text: 'Hello there, operator.', chunks: 4, usage: { inputTokens: 7, outputTokens: 4 } });
    const completion = await client.chat.completions
      .stream({
        model: 'gpt-x',
        messages: [{ role: 'user', content: 'hi' }],
        stream_options: { include_usage: true },
      })
      .finalChatCompletion();
    expect(completion.choices[0]?.message.content).toBe('Hello there, operator.');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 4, total_tokens: 11 });
  });

  it('streams tool-call arguments by index that the SDK reassembles', async () => {
    fake.enqueue({
      toolCalls: [
        { name: 'search', input: { q: 'hal ai' } },
        { name: 'open', input: { url: 'http://example.invalid/a' } },
      ],
    });
    const completion = await client.chat.completions
      .stream({ model: 'gpt-x', messages: [{ role: 'user', content: 'go' }] })
      .finalChatCompletion();
    const calls = completion.choices[0]?.message.tool_calls ?? [];
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(
      calls.map(
        (call) => call.type === 'function' && [call.function.name, JSON.parse(call.function.arguments)],
      ),
    ).toEqual([
      ['search', { q: 'hal ai' }],
      ['open', { url: 'http://example.invalid/a' }],
    ]);
  });

  it('answers non-streaming requests and lists models', async () => {
    fake.enqueue({ text: 'plain' });
    const completion = await client.chat.completions.create({
      model: 'gpt-x',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(completion.choices[0]?.message.content).toBe('plain');
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toEqual(['gpt-a', 'gpt-b']);
  });

  it('maps 401, 429 and 5xx onto the SDK error classes, and an in-stream error event', async () => {
    const bad = new OpenAI({ apiKey: 'wrong', baseURL: fake.baseUrl, maxRetries: 0 });
    const params = { model: 'm', messages: [{ role: 'user' as const, content: 'x' }] };
    await expect(bad.chat.completions.create(params)).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    fake.enqueue(
      { error: { status: 429, retryAfter: 2 } },
      { error: { status: 529 } },
      { text: 'a', streamError: 'overloaded' },
    );
    await expect(client.chat.completions.create(params)).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    await expect(client.chat.completions.create(params)).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    await expect(client.chat.completions.stream(params).finalChatCompletion()).rejects.toThrow(/overloaded/);
  });
});

describe('createFakeOpenAI and reasoning_effort (official SDK as the client)', () => {
  let fake: FakeServer;
  let client: OpenAI;
  beforeEach(async () => {
    fake = await createFakeOpenAI();
    client = new OpenAI({ apiKey: 'k', baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterEach(() => fake.close());

  it('a reasoning model takes it and reports its reasoning tokens', async () => {
    fake.enqueue({ text: 'ok', usage: { inputTokens: 5, outputTokens: 30, reasoningTokens: 24 } });
    const completion = await client.chat.completions
      .stream({
        model: 'o4-mini',
        reasoning_effort: 'high',
        messages: [{ role: 'user', content: 'hi' }],
        stream_options: { include_usage: true },
      })
      .finalChatCompletion();
    expect(completion.usage).toMatchObject({
      completion_tokens: 30,
      completion_tokens_details: { reasoning_tokens: 24 },
    });
  });

  it('a model without reasoning, or an unknown effort, is refused with 400', async () => {
    const ask = (model: string, effort: string) =>
      client.chat.completions.create({
        model,
        reasoning_effort: effort as never,
        messages: [{ role: 'user', content: 'hi' }],
      });
    await expect(ask('gpt-4o', 'low')).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(ask('gpt-5', 'extreme')).rejects.toMatchObject({ status: 400 });
  });
});
