import { randomBytes } from 'node:crypto';
import type Anthropic from '@anthropic-ai/sdk';
import { type CallOptions, HalError, type StreamPart } from '@hal-ai/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectStreamParts, createFakeAnthropic, type FakeServer, streamedText } from '../testing/index.js';
import { buildAnthropicMessagesBody } from './anthropic-language-model.js';
import { createAnthropic } from './anthropic-provider.js';

const prompt: CallOptions['prompt'] = [
  { role: 'system', content: 'You are HAL.' },
  { role: 'user', content: [{ type: 'text', text: 'What is the weather in Seoul?' }] },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me check.' },
      { type: 'tool-call', toolCallId: 'toolu_1', toolName: 'weather', input: { city: 'Seoul' } },
    ],
  },
  {
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: 'toolu_1', toolName: 'weather', output: { c: 21 } }],
  },
  { role: 'user', content: [{ type: 'text', text: 'Thanks.' }] },
];
const tools: CallOptions['tools'] = [
  {
    name: 'weather',
    description: 'Current weather',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    risk: 'read',
  },
];

function errorOf(parts: StreamPart[]): HalError {
  const last = parts.at(-1);
  if (last?.type !== 'error') throw new Error(`expected an error part, got ${JSON.stringify(last)}`);
  return last.error;
}

describe('anthropic adapter against the fake', () => {
  let fake: FakeServer;
  const apiKey = `key-${randomBytes(16).toString('hex')}`;
  const sleeps: number[] = [];
  const make = (extra: Parameters<typeof createAnthropic>[0] = {}) =>
    createAnthropic({
      apiKey,
      baseUrl: fake.url,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      ...extra,
    }).languageModel('claude-test');

  beforeEach(async () => {
    sleeps.length = 0;
    fake = await createFakeAnthropic({
      models: [{ id: 'claude-a', displayName: 'A' }, { id: 'claude-b' }, { id: 'claude-c' }],
    });
  });
  afterEach(() => fake.close());

  it('builds a Messages body the SDK types accept', () => {
    const body: Anthropic.MessageCreateParamsNonStreaming = buildAnthropicMessagesBody('claude-test', {
      prompt,
      tools,
      toolChoice: 'auto',
      maxOutputTokens: 256,
      temperature: 0.2,
    });
    const streaming: Anthropic.MessageCreateParamsStreaming = { ...body, stream: true };
    expect(streaming.stream).toBe(true);
    expect(body).toMatchInlineSnapshot(`
      {
        "max_tokens": 256,
        "messages": [
          {
            "content": [
              {
                "text": "What is the weather in Seoul?",
                "type": "text",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "text": "Let me check.",
                "type": "text",
              },
              {
                "id": "toolu_1",
                "input": {
                  "city": "Seoul",
                },
                "name": "weather",
                "type": "tool_use",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "content": "{"c":21}",
                "tool_use_id": "toolu_1",
                "type": "tool_result",
              },
              {
                "text": "Thanks.",
                "type": "text",
              },
            ],
            "role": "user",
          },
        ],
        "model": "claude-test",
        "system": "You are HAL.",
        "temperature": 0.2,
        "tool_choice": {
          "type": "auto",
        },
        "tools": [
          {
            "description": "Current weather",
            "input_schema": {
              "properties": {
                "city": {
                  "type": "string",
                },
              },
              "required": [
                "city",
              ],
              "type": "object",
            },
            "name": "weather",
          },
        ],
      }
    `);
  });

  it('streams text with usage and sends the wire headers', async () => {
    fake.enqueue({ text: 'Hello, operator.', chunks: 3, usage: { inputTokens: 11, outputTokens: 4 } });
    const parts = await collectStreamParts((await make().doStream({ prompt, tools })).stream);
    expect(streamedText(parts)).toBe('Hello, operator.');
    expect(parts.filter((part) => part.type === 'text-delta')).toHaveLength(3);
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: { inputTokens: 11, outputTokens: 4 },
    });
    const request = fake.requests.at(-1);
    expect(request?.headers).toMatchObject({ 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' });
    expect(request?.body).toMatchObject({ stream: true, model: 'claude-test', system: 'You are HAL.' });
  });

  it('leaves usage absent when the provider reports none', async () => {
    fake.enqueue({ text: 'x', usage: false });
    const parts = await collectStreamParts((await make().doStream({ prompt })).stream);
    expect(parts.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
  });

  it('streams a tool call whose arguments arrive in pieces', async () => {
    fake.enqueue({
      text: 'Checking.',
      toolCall: { name: 'weather', input: { city: 'Seoul', days: 3 }, id: 'toolu_9' },
      chunks: 4,
    });
    const parts = await collectStreamParts((await make().doStream({ prompt, tools })).stream);
    expect(parts.filter((part) => part.type === 'tool-input-delta').length).toBeGreaterThan(1);
    expect(parts).toContainEqual({
      type: 'tool-call',
      toolCallId: 'toolu_9',
      toolName: 'weather',
      input: { city: 'Seoul', days: 3 },
    });
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
  });

  it('authenticates with a Bearer token instead of x-api-key', async () => {
    const token = randomBytes(16).toString('hex');
    const model = createAnthropic({ authToken: token, baseUrl: fake.url }).languageModel('claude-test');
    fake.enqueue({ text: 'ok' });
    await model.doGenerate({ prompt });
    expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${token}`);
    expect(fake.requests.at(-1)?.headers['x-api-key']).toBeUndefined();
  });

  it('generates without streaming', async () => {
    fake.enqueue({ text: 'Sure.', toolCall: { name: 'weather', input: { city: 'Busan' }, id: 'toolu_2' } });
    const result = await make().doGenerate({ prompt, tools });
    expect(result.content).toEqual([
      { type: 'text', text: 'Sure.' },
      { type: 'tool-call', toolCallId: 'toolu_2', toolName: 'weather', input: { city: 'Busan' } },
    ]);
    expect(result.finishReason).toBe('tool-calls');
    expect(fake.requests.at(-1)?.body).not.toHaveProperty('stream');
  });

  it('maps 401 to provider_auth without leaking the key', async () => {
    fake.enqueue({ error: { status: 401, message: `invalid x-api-key ${apiKey}` } });
    const error = errorOf(await collectStreamParts((await make().doStream({ prompt })).stream));
    expect(error.code).toBe('provider_auth');
    expect(error.details).toMatchObject({ status: 401 });
    expect(error.message).toBe('anthropic answered HTTP 401 (authentication_error)');
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(apiKey);
    expect(fake.requests).toHaveLength(1);
  });

  it('retries 429 honouring Retry-After, then succeeds', async () => {
    fake.enqueue({ error: { status: 429, retryAfter: 2 } }, { error: { status: 529 } }, { text: 'finally' });
    const parts = await collectStreamParts((await make().doStream({ prompt })).stream);
    expect(streamedText(parts)).toBe('finally');
    expect(sleeps).toEqual([2000, 500]);
    expect(fake.requests).toHaveLength(3);
  });

  it('gives up after two retries with the mapped code and retryAfterS', async () => {
    fake.enqueue(
      { error: { status: 429, retryAfter: 1 } },
      { error: { status: 429, retryAfter: 1 } },
      { error: { status: 429, retryAfter: 1 } },
    );
    const error = errorOf(await collectStreamParts((await make().doStream({ prompt })).stream));
    expect(error.code).toBe('provider_rate_limited');
    expect(error.details).toMatchObject({ status: 429, retryAfterS: 1 });
    expect(fake.requests).toHaveLength(3);
  });

  it('does not wait out a Retry-After longer than 10 s', async () => {
    const date = new Date(Date.now() + 60_000).toUTCString();
    fake.enqueue({ error: { status: 429, retryAfter: date } });
    const error = errorOf(await collectStreamParts((await make().doStream({ prompt })).stream));
    expect(error.code).toBe('provider_rate_limited');
    expect(error.details.retryAfterS).toBeGreaterThan(10);
    expect(fake.requests).toHaveLength(1);
  });

  it('maps 500 and 529 to provider_unavailable', async () => {
    fake.enqueue({ error: { status: 500 } }, { error: { status: 529 } }, { error: { status: 529 } });
    const error = errorOf(await collectStreamParts((await make().doStream({ prompt })).stream));
    expect(error.code).toBe('provider_unavailable');
    expect(error.details).toMatchObject({ status: 529, type: 'overloaded_error' });
    await expect(make({ maxRetries: 0 }).doGenerate({ prompt })).resolves.toBeDefined();
  });

  it('times out when no byte arrives', async () => {
    fake.enqueue({ stall: 'before-first-byte' });
    const error = errorOf(
      await collectStreamParts((await make({ firstByteTimeoutMs: 200 }).doStream({ prompt })).stream),
    );
    expect(error.code).toBe('provider_timeout');
  });

  it('times out when the stream goes silent mid-way, after the text so far', async () => {
    fake.enqueue({ text: 'partial answer', stall: 'mid-stream' });
    const parts = await collectStreamParts((await make({ idleTimeoutMs: 200 }).doStream({ prompt })).stream);
    expect(streamedText(parts)).toBe('partial answer');
    expect(errorOf(parts).code).toBe('provider_timeout');
  });

  it('reports a cut stream after the text so far and never emits a half tool call', async () => {
    fake.enqueue(
      { text: 'so far', cut: true },
      { toolCall: { name: 'weather', input: { city: 'Seoul' } }, cut: true },
    );
    const first = await collectStreamParts((await make().doStream({ prompt })).stream);
    expect(streamedText(first)).toBe('so far');
    expect(errorOf(first)).toMatchObject({
      code: 'provider_bad_response',
      message: expect.stringMatching(/cut/),
    });
    const second = await collectStreamParts((await make().doStream({ prompt, tools })).stream);
    expect(second.some((part) => part.type === 'tool-call')).toBe(false);
    expect(errorOf(second).code).toBe('provider_bad_response');
  });

  it('treats a cleanly ended stream without message_stop as cut', async () => {
    fake.enqueue({ text: 'so far', cut: 'end' });
    const parts = await collectStreamParts((await make().doStream({ prompt })).stream);
    expect(errorOf(parts).message).toMatch(/cut/);
  });

  it('maps a malformed chunk and a malformed body to provider_bad_response', async () => {
    fake.enqueue({ text: 'abc', malformed: true }, { malformed: true });
    expect(errorOf(await collectStreamParts((await make().doStream({ prompt })).stream)).code).toBe(
      'provider_bad_response',
    );
    await expect(make().doGenerate({ prompt })).rejects.toMatchObject({ code: 'provider_bad_response' });
  });

  it('maps 200-then-error events by type', async () => {
    fake.enqueue(
      { text: 'a', streamError: 'overloaded' },
      { text: 'b', streamError: 'rate_limit' },
      { text: 'c', streamError: 'invalid_request' },
    );
    const codes: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      codes.push(errorOf(await collectStreamParts((await make().doStream({ prompt })).stream)).code);
    }
    expect(codes).toEqual(['provider_unavailable', 'provider_rate_limited', 'provider_bad_response']);
  });

  it('rejects tool arguments that are not JSON', async () => {
    fake.setModels([]);
    const parts: StreamPart[] = [];
    // The fake always sends valid JSON, so feed a raw SSE body through a scripted responder.
    const raw = await import('node:http');
    const server = raw.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = (data: unknown) => response.write(`event: x\ndata: ${JSON.stringify(data)}\n\n`);
      event({ type: 'message_start', message: { id: 'm', model: 'c', usage: { input_tokens: 1 } } });
      event({
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 't', name: 'weather', input: {} },
      });
      event({
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: '{"city": Seo' },
      });
      event({ type: 'content_block_stop', index: 0 });
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address() as { port: number };
    const model = createAnthropic({ apiKey, baseUrl: `http://127.0.0.1:${address.port}` }).languageModel('c');
    parts.push(...(await collectStreamParts((await model.doStream({ prompt })).stream)));
    server.close();
    expect(parts.some((part) => part.type === 'tool-call')).toBe(false);
    expect(errorOf(parts)).toMatchObject({
      code: 'provider_bad_response',
      message: expect.stringMatching(/not valid JSON/),
    });
  });

  it('maps connection refused to provider_unavailable', async () => {
    const url = fake.url;
    await fake.close();
    const error = errorOf(
      await collectStreamParts((await make({ baseUrl: url }).doStream({ prompt })).stream),
    );
    expect(error.code).toBe('provider_unavailable');
    fake = await createFakeAnthropic();
  });

  it('cancels on abort and releases the connection', async () => {
    fake.enqueue({ text: 'slow answer', stall: 'mid-stream' });
    const controller = new AbortController();
    const { stream } = await make().doStream({ prompt, abortSignal: controller.signal });
    const reader = stream.getReader();
    const seen: StreamPart[] = [];
    for (;;) {
      const { value } = await reader.read();
      if (!value) break;
      seen.push(value);
      if (value.type === 'text-delta') controller.abort();
      if (value.type === 'error') break;
    }
    expect(errorOf(seen).code).toBe('interrupted');
  });

  it('lists models across pages', async () => {
    fake.setModels([{ id: 'claude-a', displayName: 'A' }, { id: 'claude-b' }, { id: 'claude-c' }]);
    const provider = createAnthropic({ apiKey, baseUrl: fake.url });
    const fakeWithSmallPages = fake;
    expect(await provider.listModels()).toEqual([
      { id: 'claude-a', displayName: 'A' },
      { id: 'claude-b', displayName: 'claude-b' },
      { id: 'claude-c', displayName: 'claude-c' },
    ]);
    expect(fakeWithSmallPages.requests.at(-1)?.path).toBe('/v1/models');
  });

  it('throws HalError from listModels on 401', async () => {
    const guarded = await createFakeAnthropic({ apiKey: randomBytes(8).toString('hex') });
    const provider = createAnthropic({ apiKey, baseUrl: guarded.url });
    const error = await provider.listModels().catch((caught: unknown) => caught);
    await guarded.close();
    expect(HalError.isInstance(error) && error.code).toBe('provider_auth');
    expect(String((error as Error).message)).not.toContain(apiKey);
  });
});
