import { HalError, type LanguageModel, type StreamPart } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import { CANCELLED, consumeModelStream } from './room-model-stream.js';
import { createScriptedModel, textReply, toolCallReply } from './testing/scripted-language-model.js';

const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }];

/** A model whose stream yields `parts` and then stays open (it never ends on its own). */
const openEnded = (parts: StreamPart[]): LanguageModel => ({
  provider: 'test',
  modelId: 'open',
  async doGenerate() {
    throw new Error('stream only');
  },
  async doStream() {
    let index = 0;
    return {
      stream: new ReadableStream<StreamPart>({
        pull(controller) {
          const part = parts[index++];
          if (part) {
            controller.enqueue(part);
            return;
          }
          // Never answers again, like an adapter that ignores the abort signal.
          return new Promise(() => undefined);
        },
      }),
    };
  },
});

/** A model whose stream yields exactly `parts`, then ends. */
const replay = (parts: StreamPart[]): LanguageModel => ({
  provider: 'test',
  modelId: 'replay',
  async doGenerate() {
    throw new Error('stream only');
  },
  async doStream() {
    return {
      stream: new ReadableStream<StreamPart>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    };
  },
});

describe('consumeModelStream', () => {
  it("keeps reasoning apart from the text and every part's provider data, and sends no reasoning as a delta", async () => {
    const deltas: string[] = [];
    const model = replay([
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: 'Need the ' },
      { type: 'reasoning-delta', id: 'r', delta: 'server list.' },
      { type: 'reasoning-end', id: 'r', providerMetadata: { anthropic: { signature: 'sig-1' } } },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Checking.' },
      { type: 'text-end', id: 't', providerMetadata: { gemini: { thoughtSignature: 'text-sig' } } },
      {
        type: 'tool-call',
        toolCallId: 'c1',
        toolName: 'hal_servers_list',
        input: {},
        providerMetadata: { gemini: { thoughtSignature: 'call-sig' } },
      },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
    const outcome = await consumeModelStream(model, { prompt }, (text) => deltas.push(text));
    expect(outcome.blocks).toEqual([
      {
        type: 'reasoning',
        text: 'Need the server list.',
        providerMetadata: { anthropic: { signature: 'sig-1' } },
      },
      { type: 'text', text: 'Checking.', providerMetadata: { gemini: { thoughtSignature: 'text-sig' } } },
      {
        type: 'tool-call',
        toolCallId: 'c1',
        toolName: 'hal_servers_list',
        input: {},
        providerMetadata: { gemini: { thoughtSignature: 'call-sig' } },
      },
    ]);
    expect(outcome.toolCalls).toEqual([outcome.blocks[2]]);
    expect(deltas).toEqual(['Checking.']);
  });

  it('merges text deltas into one block, reports each delta, and keeps only numeric usage', async () => {
    const deltas: string[] = [];
    const model = createScriptedModel({
      steps: [textReply('hello there, operator', { inputTokens: 5, outputTokens: 3 })],
    });
    const outcome = await consumeModelStream(model, { prompt }, (text) => deltas.push(text));
    expect(outcome.blocks).toEqual([{ type: 'text', text: 'hello there, operator' }]);
    expect(deltas.join('')).toBe('hello there, operator');
    expect(deltas.length).toBeGreaterThan(1);
    expect(outcome.usage).toEqual({ inputTokens: 5, outputTokens: 3 });
    expect(outcome.error).toBeNull();
    expect(outcome.toolCalls).toEqual([]);
  });

  it('returns tool calls as blocks in stream order, after the text before them', async () => {
    const model = createScriptedModel({
      steps: [toolCallReply([{ toolName: 'hal_servers_list', input: {}, toolCallId: 'c1' }], 'checking')],
    });
    const outcome = await consumeModelStream(model, { prompt }, () => undefined);
    expect(outcome.blocks.map((block) => block.type)).toEqual(['text', 'tool-call']);
    expect(outcome.toolCalls).toEqual([
      { type: 'tool-call', toolCallId: 'c1', toolName: 'hal_servers_list', input: {} },
    ]);
    expect(outcome.usage).toBeNull();
  });

  it('turns an error part into the error, keeping the HAL code, and never throws', async () => {
    const model = createScriptedModel({
      steps: [
        [
          { type: 'stream-start' },
          { type: 'text-delta', id: 't', delta: 'par' },
          { type: 'error', error: new HalError('provider_rate_limited', 'slow down') },
        ],
      ],
    });
    const outcome = await consumeModelStream(model, { prompt }, () => undefined);
    expect(outcome.error).toEqual({ code: 'provider_rate_limited', message: 'slow down' });
    expect(outcome.blocks).toEqual([{ type: 'text', text: 'par' }]);
  });

  it('calls a stream that ends without finish a bad response, and a throwing adapter unavailable', async () => {
    const cut = createScriptedModel({ steps: [[{ type: 'text-delta', id: 't', delta: 'x' }]] });
    expect((await consumeModelStream(cut, { prompt }, () => undefined)).error).toMatchObject({
      code: 'provider_bad_response',
    });
    const throwing: LanguageModel = {
      ...cut,
      doStream: async () => {
        throw new TypeError('socket hang up');
      },
    };
    expect((await consumeModelStream(throwing, { prompt }, () => undefined)).error).toEqual({
      code: 'provider_unavailable',
      message: 'The model call failed',
    });
  });

  it('ends as cancelled on abort even when the adapter ignores the signal', async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const reading = consumeModelStream(
      openEnded([{ type: 'text-delta', id: 't', delta: 'first' }]),
      { prompt, abortSignal: controller.signal },
      (text) => {
        seen.push(text);
        controller.abort();
      },
    );
    const outcome = await reading;
    expect(seen).toEqual(['first']);
    expect(outcome.error).toEqual(CANCELLED);
    expect(outcome.blocks).toEqual([{ type: 'text', text: 'first' }]);
  });
});
