import { randomBytes } from 'node:crypto';
import type { AssistantContentPart, CallOptions, Prompt } from '@hal-ai/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { continueToolLoop } from '../shared/tool-loop.test-support.js';
import { assistantContent, collectStreamParts, createFakeGemini, type FakeServer } from '../testing/index.js';
import { buildGeminiGenerateBody } from './gemini-language-model.js';
import { createGemini } from './gemini-provider.js';

const tools: CallOptions['tools'] = [
  { name: 'lookup', description: 'Weather', inputSchema: { type: 'object', properties: {} } },
];
const question: Prompt = [{ role: 'user', content: [{ type: 'text', text: 'Weather in Seoul?' }] }];

const continuation = (content: AssistantContentPart[]) =>
  continueToolLoop(question, content, { sky: 'clear' });

describe('gemini thought signatures in a tool loop', () => {
  let fake: FakeServer;
  const apiKey = `key-${randomBytes(16).toString('hex')}`;
  beforeEach(async () => {
    fake = await createFakeGemini({ apiKey });
  });
  afterEach(() => fake.close());

  const model = (id = 'gemini-3-pro-preview') =>
    createGemini({ apiKey, baseUrl: fake.url }).languageModel(id);

  it('keeps the signature on the streamed call and sends it back on that part: the second step is accepted', async () => {
    fake.enqueue({
      text: 'Checking.',
      toolCalls: [
        { name: 'lookup', input: { city: 'Seoul' } },
        { name: 'lookup', input: {} },
      ],
    });
    const first = await collectStreamParts((await model().doStream({ prompt: question, tools })).stream);
    const content = assistantContent(first);
    const calls = content.filter((part) => part.type === 'tool-call');
    expect(calls[0]?.providerMetadata).toEqual({ gemini: { thoughtSignature: expect.any(String) } });
    expect(calls[1]?.providerMetadata).toBeUndefined();
    // The text run ended before the call, without a signature of its own.
    expect(first.findIndex((part) => part.type === 'text-end')).toBeLessThan(
      first.findIndex((part) => part.type === 'tool-input-start'),
    );

    fake.enqueue({ text: 'Clear.' });
    const second = await collectStreamParts(
      (await model().doStream({ prompt: continuation(content), tools })).stream,
    );
    expect(second.filter((part) => part.type === 'error')).toEqual([]);
    expect(second.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    const sent = fake.requests.at(-1)?.body as { contents: Array<{ role: string; parts: unknown[] }> };
    expect(sent.contents[1]?.parts).toEqual([
      { text: 'Checking.' },
      {
        functionCall: { name: 'lookup', args: { city: 'Seoul' } },
        thoughtSignature: calls[0]?.providerMetadata?.gemini?.thoughtSignature,
      },
      { functionCall: { name: 'lookup', args: {} } },
    ]);
  });

  it('a continuation without the signature is refused once: provider_bad_response, never sent twice', async () => {
    fake.enqueue({ toolCall: { name: 'lookup', input: {} } });
    const content = assistantContent(
      await collectStreamParts((await model().doStream({ prompt: question, tools })).stream),
    );
    const bare = content.map((part) =>
      part.type === 'tool-call' ? { ...part, providerMetadata: undefined } : part,
    );
    const before = fake.requests.length;
    const parts = await collectStreamParts(
      (await model().doStream({ prompt: continuation(bare), tools })).stream,
    );
    expect(parts).toEqual([
      {
        type: 'error',
        error: expect.objectContaining({
          code: 'provider_bad_response',
          details: expect.objectContaining({ status: 400, type: 'INVALID_ARGUMENT' }),
        }),
      },
    ]);
    await expect(model().doGenerate({ prompt: continuation(bare), tools })).rejects.toMatchObject({
      code: 'provider_bad_response',
    });
    expect(fake.requests.length - before).toBe(2);
  });

  it('doGenerate keeps the signatures of calls and of a text answer', async () => {
    fake.enqueue({ toolCall: { name: 'lookup', input: {} } }, { text: 'Clear.' });
    const first = await model().doGenerate({ prompt: question, tools });
    expect(first.content).toEqual([
      {
        type: 'tool-call',
        toolCallId: expect.any(String),
        toolName: 'lookup',
        input: {},
        providerMetadata: { gemini: { thoughtSignature: expect.any(String) } },
      },
    ]);
    const second = await model().doGenerate({ prompt: continuation(first.content), tools });
    expect(second.content).toEqual([
      {
        type: 'text',
        text: 'Clear.',
        providerMetadata: { gemini: { thoughtSignature: expect.any(String) } },
      },
    ]);
  });

  it("a streamed text's signature (on an empty last part) rides on text-end", async () => {
    fake.enqueue({ text: 'Hello there.' });
    const parts = await collectStreamParts((await model().doStream({ prompt: question })).stream);
    expect(parts.find((part) => part.type === 'text-end')).toEqual({
      type: 'text-end',
      id: '0',
      providerMetadata: { gemini: { thoughtSignature: expect.any(String) } },
    });
  });

  it('models that do not sign need nothing back (gemini-2.5)', async () => {
    fake.enqueue({ toolCall: { name: 'lookup', input: {} } }, { text: 'ok' });
    const content = assistantContent(
      await collectStreamParts(
        (await model('gemini-2.5-flash').doStream({ prompt: question, tools })).stream,
      ),
    );
    expect(content[0]).not.toHaveProperty('providerMetadata');
    const parts = await collectStreamParts(
      (await model('gemini-2.5-flash').doStream({ prompt: continuation(content), tools })).stream,
    );
    expect(parts.at(-1)).toMatchObject({ type: 'finish' });
  });
});

describe('gemini reasoning levels → thinkingConfig', () => {
  let fake: FakeServer;
  beforeEach(async () => {
    fake = await createFakeGemini();
  });
  afterEach(() => fake.close());

  it.each([
    ['gemini-3-pro-preview', 'low', { thinkingLevel: 'low' }],
    ['gemini-3-pro-preview', 'medium', { thinkingLevel: 'high' }],
    ['gemini-3-flash-preview', 'medium', { thinkingLevel: 'medium' }],
    ['gemini-3-pro-preview', 'high', { thinkingLevel: 'high' }],
    ['gemini-2.5-flash', 'low', { thinkingBudget: 1024 }],
    ['gemini-2.5-pro', 'medium', { thinkingBudget: 8192 }],
    ['gemini-2.5-flash', 'high', { thinkingBudget: 24_576 }],
  ] as const)('%s at %s sends %o, and the API accepts it', async (modelId, reasoning, thinkingConfig) => {
    expect(buildGeminiGenerateBody({ prompt: question, reasoning }, modelId).generationConfig).toEqual({
      thinkingConfig,
    });
    fake.enqueue({ text: 'ok', usage: { inputTokens: 3, outputTokens: 1, reasoningTokens: 40 } });
    const result = await createGemini({ apiKey: 'k', baseUrl: fake.url })
      .languageModel(modelId)
      .doGenerate({ prompt: question, reasoning });
    expect(result.usage).toEqual({ inputTokens: 3, outputTokens: 1, totalTokens: 44, reasoningTokens: 40 });
  });

  it('off, no level and models without thinking send no thinkingConfig', () => {
    expect(
      buildGeminiGenerateBody({ prompt: question, reasoning: 'off' }, 'gemini-3-pro-preview'),
    ).not.toHaveProperty('generationConfig');
    expect(buildGeminiGenerateBody({ prompt: question }, 'gemini-2.5-flash')).not.toHaveProperty(
      'generationConfig',
    );
    expect(
      buildGeminiGenerateBody({ prompt: question, reasoning: 'high' }, 'gemini-1.5-pro'),
    ).not.toHaveProperty('generationConfig');
  });
});
