import { randomBytes } from 'node:crypto';
import type { CallOptions } from '@hal-ai/spec';
import type OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeProviderFaults } from '../shared/provider-fault-suite.test-support.js';
import { collectStreamParts, createFakeOpenAI, type FakeServer, streamedText } from '../testing/index.js';
import { buildOpenAICompatibleChatBody } from './openai-compatible-language-model.js';
import { createOpenAI, createOpenAICompatible, createOpenRouter } from './openai-compatible-provider.js';

describeProviderFaults({
  name: 'openai-compatible',
  createFake: createFakeOpenAI,
  createModel: (fake, apiKey, settings) =>
    createOpenAI({ apiKey, baseUrl: fake.baseUrl, ...settings }).languageModel('gpt-test'),
  toolArgumentsInPieces: true,
});

const prompt: CallOptions['prompt'] = [
  { role: 'system', content: 'You are HAL.' },
  { role: 'user', content: [{ type: 'text', text: 'Weather in Seoul?' }] },
  {
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'weather', input: { city: 'Seoul' } }],
  },
  {
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'weather', output: 'sunny' }],
  },
];

describe('openai-compatible request bodies and presets', () => {
  let fake: FakeServer;
  const apiKey = `key-${randomBytes(16).toString('hex')}`;
  beforeEach(async () => {
    fake = await createFakeOpenAI({
      models: [{ id: 'gpt-a' }, { id: 'or/b', displayName: 'B', contextWindow: 8000 }],
    });
  });
  afterEach(() => fake.close());

  it('builds a body the SDK types accept', () => {
    const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = buildOpenAICompatibleChatBody(
      'gpt-test',
      {
        prompt,
        tools: [{ name: 'weather', description: 'Weather', inputSchema: { type: 'object' } }],
        toolChoice: { type: 'tool', toolName: 'weather' },
        maxOutputTokens: 100,
      },
      'max_completion_tokens',
    );
    const streaming: OpenAI.Chat.ChatCompletionCreateParamsStreaming = { ...body, stream: true };
    expect(streaming.stream).toBe(true);
    expect(body).toMatchInlineSnapshot(`
      {
        "max_completion_tokens": 100,
        "messages": [
          {
            "content": "You are HAL.",
            "role": "system",
          },
          {
            "content": "Weather in Seoul?",
            "role": "user",
          },
          {
            "content": null,
            "role": "assistant",
            "tool_calls": [
              {
                "function": {
                  "arguments": "{"city":"Seoul"}",
                  "name": "weather",
                },
                "id": "call_1",
                "type": "function",
              },
            ],
          },
          {
            "content": "sunny",
            "role": "tool",
            "tool_call_id": "call_1",
          },
        ],
        "model": "gpt-test",
        "tool_choice": {
          "function": {
            "name": "weather",
          },
          "type": "function",
        },
        "tools": [
          {
            "function": {
              "description": "Weather",
              "name": "weather",
              "parameters": {
                "type": "object",
              },
            },
            "type": "function",
          },
        ],
      }
    `);
  });

  it('sends the streaming fields and Bearer auth to {baseUrl}/chat/completions', async () => {
    fake.enqueue({ text: 'ok' });
    const model = createOpenAI({ apiKey, baseUrl: fake.baseUrl }).languageModel('gpt-test');
    const parts = await collectStreamParts((await model.doStream({ prompt })).stream);
    expect(streamedText(parts)).toBe('ok');
    const request = fake.requests.at(-1);
    expect(request).toMatchObject({
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(request?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(parts.at(-1)).toMatchObject({ usage: { inputTokens: 10, outputTokens: 1, totalTokens: 11 } });
  });

  it('sends the text its body encoder gives (JSON.stringify by default)', async () => {
    const system = `skill ${'s'.repeat(5000)}`;
    const sent = (text: string) => [
      { role: 'system' as const, content: `${system}${text}` },
      ...prompt.slice(1),
    ];
    fake.enqueue({ text: 'plain' });
    await collectStreamParts(
      (
        await createOpenAI({ apiKey, baseUrl: fake.baseUrl })
          .languageModel('gpt-test')
          .doStream({ prompt: sent('a') })
      ).stream,
    );
    expect(
      (fake.requests.at(-1)?.body as { messages: Array<{ content: string }> } | undefined)?.messages[0]
        ?.content,
    ).toBe(`${system}a`);
    // A host's encoder: what it returns is what the provider receives, byte for byte.
    const encoded: unknown[] = [];
    const encodeBody = (body: unknown) => {
      encoded.push(body);
      return JSON.stringify({ ...(body as object), marker: encoded.length });
    };
    const model = createOpenAI({ apiKey, baseUrl: fake.baseUrl, encodeBody }).languageModel('gpt-test');
    for (const text of ['b', 'c']) {
      fake.enqueue({ text });
      await collectStreamParts((await model.doStream({ prompt: sent(text) })).stream);
    }
    expect(encoded).toHaveLength(2);
    expect(fake.requests.slice(-2).map((request) => (request.body as { marker: number }).marker)).toEqual([
      1, 2,
    ]);
    expect(
      (fake.requests.at(-1)?.body as { messages: Array<{ content: string }> } | undefined)?.messages[0]
        ?.content,
    ).toBe(`${system}c`);
  });

  it('leaves no idle timer behind once a stream has finished', async () => {
    // A leaked idle timer keeps a process (e.g. `hal serve` shutting down) alive for a whole idle timeout.
    const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
    const model = createOpenAI({ apiKey, baseUrl: fake.baseUrl, idleTimeoutMs: 600_000 }).languageModel(
      'gpt-test',
    );
    const before = timers();
    for (let i = 0; i < 5; i++) {
      fake.enqueue({ text: `answer ${i}`, chunks: 3 });
      const parts = await collectStreamParts((await model.doStream({ prompt })).stream);
      expect(streamedText(parts)).toBe(`answer ${i}`);
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(timers()).toBeLessThan(before + 5);
  });

  it('generates without streaming, parsing tool arguments', async () => {
    fake.enqueue({ toolCall: { name: 'weather', input: { city: 'Busan' }, id: 'call_7' } });
    const result = await createOpenAI({ apiKey, baseUrl: fake.baseUrl })
      .languageModel('gpt-test')
      .doGenerate({ prompt });
    expect(result.content).toEqual([
      { type: 'tool-call', toolCallId: 'call_7', toolName: 'weather', input: { city: 'Busan' } },
    ]);
    expect(result.finishReason).toBe('tool-calls');
  });

  it('sends OpenRouter attribution headers and lists models with names and context', async () => {
    const openrouter = createOpenRouter({
      apiKey,
      baseUrl: fake.baseUrl,
      appUrl: 'https://hal.example.com',
      appName: 'HAL AI',
    });
    expect(openrouter.provider).toBe('openrouter');
    expect(await openrouter.listModels()).toEqual([
      { id: 'gpt-a' },
      { id: 'or/b', displayName: 'B', contextWindow: 8000 },
    ]);
    expect(fake.requests.at(-1)).toMatchObject({
      path: '/v1/models',
      headers: { 'http-referer': 'https://hal.example.com', 'x-title': 'HAL AI' },
    });
  });

  it('requires a base URL for other services', () => {
    expect(() => createOpenAICompatible({ apiKey })).toThrow(
      expect.objectContaining({ code: 'validation_failed' }),
    );
    expect(createOpenAICompatible({ baseUrl: fake.baseUrl }).provider).toBe('other');
  });
});

describe('openai-compatible connection reuse', () => {
  it('keeps the connection when the body ends a little after `[DONE]`, instead of aborting it', async () => {
    // Real providers often send the chunked terminator in its own packet, after the final event.
    const { createServer } = await import('node:http');
    let connections = 0;
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: null }] })}\n\n`,
      );
      response.write(
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`,
      );
      setTimeout(() => response.end(), 30);
    });
    server.on('connection', () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as import('node:net').AddressInfo;
      const model = createOpenAI({ apiKey: 'k', baseUrl: `http://127.0.0.1:${port}/v1` }).languageModel('m');
      for (let index = 0; index < 3; index += 1) {
        const parts = await collectStreamParts((await model.doStream({ prompt })).stream);
        expect(streamedText(parts)).toBe('hi');
        await new Promise((resolve) => setTimeout(resolve, 60));
      }
      expect(connections).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('openai-compatible reasoning levels', () => {
  it('maps a level to reasoning_effort, sends nothing when off, and keeps the reported reasoning tokens', async () => {
    const fake = await createFakeOpenAI();
    try {
      expect(buildOpenAICompatibleChatBody('gpt-4o', { prompt: [], reasoning: 'off' })).not.toHaveProperty(
        'reasoning_effort',
      );
      const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = buildOpenAICompatibleChatBody(
        'o4-mini',
        {
          prompt: [],
          reasoning: 'medium',
        },
      );
      expect(body.reasoning_effort).toBe('medium');
      const model = createOpenAI({ apiKey: 'k', baseUrl: fake.baseUrl }).languageModel('o4-mini');
      fake.enqueue({ text: 'ok', usage: { inputTokens: 3, outputTokens: 9, reasoningTokens: 7 } });
      const parts = await collectStreamParts(
        (
          await model.doStream({
            prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
            reasoning: 'low',
          })
        ).stream,
      );
      expect(parts.at(-1)).toEqual({
        type: 'finish',
        finishReason: 'stop',
        usage: { inputTokens: 3, outputTokens: 9, totalTokens: 12, reasoningTokens: 7 },
      });
      expect(fake.requests.at(-1)?.body).toMatchObject({ reasoning_effort: 'low' });
    } finally {
      await fake.close();
    }
  });
});
