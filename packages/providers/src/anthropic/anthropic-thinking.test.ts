import { randomBytes } from 'node:crypto';
import type Anthropic from '@anthropic-ai/sdk';
import type { AssistantContentPart, CallOptions, Prompt } from '@hal-ai/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { continueToolLoop } from '../shared/tool-loop.test-support.js';
import {
  assistantContent,
  collectStreamParts,
  createFakeAnthropic,
  type FakeServer,
} from '../testing/index.js';
import { buildAnthropicMessagesBody } from './anthropic-language-model.js';
import { createAnthropic } from './anthropic-provider.js';

const tools: CallOptions['tools'] = [
  { name: 'lookup', description: 'Weather', inputSchema: { type: 'object', properties: {} } },
];
const question: Prompt = [{ role: 'user', content: [{ type: 'text', text: 'Weather in Seoul?' }] }];

const continuation = (content: AssistantContentPart[]) => continueToolLoop(question, content, 'clear');

describe('anthropic reasoning → extended thinking', () => {
  let fake: FakeServer;
  const apiKey = `key-${randomBytes(16).toString('hex')}`;
  beforeEach(async () => {
    fake = await createFakeAnthropic({ apiKey });
  });
  afterEach(() => fake.close());
  const model = () => createAnthropic({ apiKey, baseUrl: fake.url }).languageModel('claude-sonnet-4-5');

  it.each([
    ['low', 1024],
    ['medium', 4096],
    ['high', 16_384],
  ] as const)(
    '%s asks for a %i-token budget above the answer allowance, without temperature',
    (reasoning, budget) => {
      const body: Anthropic.MessageCreateParamsNonStreaming = buildAnthropicMessagesBody(
        'claude-sonnet-4-5',
        { prompt: question, reasoning, temperature: 0.3, maxOutputTokens: 1000, tools, toolChoice: 'auto' },
        4096,
      );
      expect(body).toMatchObject({
        thinking: { type: 'enabled', budget_tokens: budget },
        max_tokens: 1000 + budget,
      });
      expect(body).not.toHaveProperty('temperature');
    },
  );

  it('off, no level, or a forced tool send no thinking', () => {
    for (const options of [
      { prompt: question, reasoning: 'off' as const },
      { prompt: question },
      { prompt: question, reasoning: 'high' as const, tools, toolChoice: 'required' as const },
    ]) {
      expect(buildAnthropicMessagesBody('claude-x', options, 4096)).not.toHaveProperty('thinking');
    }
  });

  it('streams thinking as reasoning parts (never text) and sends the signed block back in the tool loop', async () => {
    fake.enqueue({
      text: 'Checking.',
      reasoning: 'I need the tool.',
      toolCall: { name: 'lookup', input: {} },
    });
    const parts = await collectStreamParts(
      (await model().doStream({ prompt: question, tools, reasoning: 'low' })).stream,
    );
    const content = assistantContent(parts);
    expect(content[0]).toEqual({
      type: 'reasoning',
      text: 'I need the tool.',
      providerMetadata: { anthropic: { signature: expect.any(String) } },
    });
    expect(
      parts
        .filter((part) => part.type === 'text-delta')
        .map((part) => part.delta)
        .join(''),
    ).toBe('Checking.');

    fake.enqueue({ text: 'Clear.' });
    const next = await collectStreamParts(
      (await model().doStream({ prompt: continuation(content), tools, reasoning: 'low' })).stream,
    );
    expect(next.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    const sent = fake.requests.at(-1)?.body as Anthropic.MessageCreateParams;
    expect(sent.messages[1]?.content).toEqual([
      {
        type: 'thinking',
        thinking: 'I need the tool.',
        signature: content[0]?.providerMetadata?.anthropic?.signature,
      },
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: expect.any(String), name: 'lookup', input: {} },
    ]);
  });

  it('a continuation without the thinking block is refused once with provider_bad_response', async () => {
    fake.enqueue({ toolCall: { name: 'lookup', input: {} } });
    const first = await model().doGenerate({ prompt: question, tools, reasoning: 'medium' });
    expect(first.content.map((part) => part.type)).toEqual(['reasoning', 'tool-call']);
    const withoutThinking = first.content.filter((part) => part.type !== 'reasoning');
    const before = fake.requests.length;
    await expect(
      model().doGenerate({ prompt: continuation(withoutThinking), tools, reasoning: 'medium' }),
    ).rejects.toMatchObject({
      code: 'provider_bad_response',
      details: { status: 400, type: 'invalid_request_error' },
    });
    expect(fake.requests.length - before).toBe(1);
  });

  it('keeps redacted thinking and sends its data back unchanged', async () => {
    fake.enqueue({ reasoning: { redacted: true }, toolCall: { name: 'lookup', input: {} } }, { text: 'ok' });
    const content = assistantContent(
      await collectStreamParts(
        (await model().doStream({ prompt: question, tools, reasoning: 'high' })).stream,
      ),
    );
    expect(content[0]).toEqual({
      type: 'reasoning',
      text: '',
      providerMetadata: { anthropic: { redactedData: expect.any(String) } },
    });
    const next = await model().doGenerate({ prompt: continuation(content), tools, reasoning: 'high' });
    expect(next.content.at(-1)).toEqual({ type: 'text', text: 'ok' });
  });

  it("leaves out reasoning that is not Claude's", () => {
    const body = buildAnthropicMessagesBody(
      'claude-x',
      {
        prompt: [
          ...question,
          {
            role: 'assistant',
            content: [
              {
                type: 'reasoning',
                text: 'thought elsewhere',
                providerMetadata: { gemini: { thoughtSignature: 'x' } },
              },
              { type: 'text', text: 'Hi.' },
            ],
          },
        ],
      },
      4096,
    );
    expect(body.messages[1]?.content).toEqual([{ type: 'text', text: 'Hi.' }]);
  });
});
