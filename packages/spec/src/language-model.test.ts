import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type CallOptions,
  type FinishReason,
  HalError,
  type LanguageModel,
  type PromptMessage,
  type ProviderMetadata,
  REASONING_LEVELS,
  type ReasoningLevel,
  type StreamPart,
  type ToolChoice,
  type Usage,
} from './index.js';

type PartOf<T extends StreamPart['type']> = Extract<StreamPart, { type: T }>;

describe('StreamPart (type level)', () => {
  it('is a union discriminated by exactly these `type`s', () => {
    expectTypeOf<StreamPart['type']>().toEqualTypeOf<
      | 'stream-start'
      | 'response-metadata'
      | 'text-start'
      | 'text-delta'
      | 'text-end'
      | 'reasoning-start'
      | 'reasoning-delta'
      | 'reasoning-end'
      | 'tool-input-start'
      | 'tool-input-delta'
      | 'tool-input-end'
      | 'tool-call'
      | 'finish'
      | 'error'
    >();
  });

  it('narrows each discriminant to its own fields', () => {
    expectTypeOf<PartOf<'text-delta'>>().toEqualTypeOf<{ type: 'text-delta'; id: string; delta: string }>();
    expectTypeOf<PartOf<'tool-input-start'>>().toEqualTypeOf<{
      type: 'tool-input-start';
      id: string;
      toolName: string;
    }>();
    expectTypeOf<PartOf<'tool-call'>>().toEqualTypeOf<{
      type: 'tool-call';
      toolCallId: string;
      toolName: string;
      input: unknown;
      providerMetadata?: ProviderMetadata;
    }>();
    expectTypeOf<PartOf<'reasoning-end'>>().toEqualTypeOf<{
      type: 'reasoning-end';
      id: string;
      providerMetadata?: ProviderMetadata;
    }>();
    expectTypeOf<PartOf<'finish'>>().toEqualTypeOf<{
      type: 'finish';
      finishReason: FinishReason;
      usage?: Usage;
    }>();
    expectTypeOf<PartOf<'error'>['error']>().toEqualTypeOf<HalError>();
  });

  it('usage fields are optional numbers: an unreported count is undefined, never estimated', () => {
    expectTypeOf<Usage>().toEqualTypeOf<{
      inputTokens?: number;
      outputTokens?: number;
      totalTokens?: number;
      cachedInputTokens?: number;
      reasoningTokens?: number;
    }>();
  });

  it('prompt messages are discriminated by role, with the content each role may carry', () => {
    expectTypeOf<PromptMessage['role']>().toEqualTypeOf<'system' | 'user' | 'assistant' | 'tool'>();
    expectTypeOf<Extract<PromptMessage, { role: 'system' }>['content']>().toEqualTypeOf<string>();
    expectTypeOf<
      Extract<PromptMessage, { role: 'tool' }>['content'][number]['type']
    >().toEqualTypeOf<'tool-result'>();
    expectTypeOf<Extract<PromptMessage, { role: 'assistant' }>['content'][number]['type']>().toEqualTypeOf<
      'text' | 'tool-call' | 'reasoning'
    >();
    expectTypeOf<NonNullable<CallOptions['reasoning']>>().toEqualTypeOf<ReasoningLevel>();
    expectTypeOf<ToolChoice>().toExtend<'auto' | 'none' | 'required' | { type: 'tool'; toolName: string }>();
  });
});

/** A model that replays fixed parts, as a provider adapter's stream would deliver them. */
function replayModel(parts: StreamPart[]): LanguageModel {
  return {
    provider: 'test',
    modelId: 'replay',
    async doGenerate() {
      throw new HalError('provider_unavailable', 'not used');
    },
    async doStream(_options: CallOptions) {
      return {
        stream: new ReadableStream<StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
}

/** The README's consumer: one exhaustive switch, errors arrive as parts. */
async function collect(model: LanguageModel) {
  const { stream } = await model.doStream({
    prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  });
  let text = '';
  const toolCalls: string[] = [];
  let finish: FinishReason | undefined;
  let error: string | undefined;
  for await (const part of stream) {
    switch (part.type) {
      case 'text-delta':
        text += part.delta;
        break;
      case 'tool-call':
        toolCalls.push(part.toolName);
        break;
      case 'finish':
        finish = part.finishReason;
        break;
      case 'error':
        error = part.error.code;
        break;
      case 'stream-start':
      case 'response-metadata':
      case 'text-start':
      case 'text-end':
      case 'reasoning-start':
      case 'reasoning-delta':
      case 'reasoning-end':
      case 'tool-input-start':
      case 'tool-input-delta':
      case 'tool-input-end':
        break;
      default: {
        // A new part type fails to compile here until consumers handle it.
        const unhandled: never = part;
        throw new Error(`unhandled part ${JSON.stringify(unhandled)}`);
      }
    }
  }
  return { text, toolCalls, finish, error };
}

describe('REASONING_LEVELS', () => {
  it('lists every level once, off first (the default)', () => {
    expect(REASONING_LEVELS).toEqual(['off', 'low', 'medium', 'high']);
  });
});

describe('consuming doStream', () => {
  it('accumulates text deltas and tool calls up to finish', async () => {
    const model = replayModel([
      { type: 'stream-start' },
      { type: 'text-start', id: 't1' },
      { type: 'text-delta', id: 't1', delta: 'Hel' },
      { type: 'text-delta', id: 't1', delta: 'lo' },
      { type: 'text-end', id: 't1' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'hal_health', input: {} },
      { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 3 } },
    ]);
    expect(await collect(model)).toEqual({
      text: 'Hello',
      toolCalls: ['hal_health'],
      finish: 'tool-calls',
      error: undefined,
    });
  });

  it('delivers a provider failure as an error part, with its stable code', async () => {
    const model = replayModel([
      { type: 'text-delta', id: 't1', delta: 'partial' },
      { type: 'error', error: new HalError('provider_rate_limited', 'slow down') },
    ]);
    expect(await collect(model)).toMatchObject({ text: 'partial', error: 'provider_rate_limited' });
  });
});
