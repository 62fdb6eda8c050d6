import { randomBytes } from 'node:crypto';
import type { CallOptions, HalError, LanguageModel, StreamPart } from '@hal-ai/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  collectStreamParts,
  type FakeServer,
  type FakeServerOptions,
  streamedText,
} from '../testing/index.js';
import type { HttpProviderSettings } from './http-settings.js';

/** How one adapter is exercised by {@link describeProviderFaults}. */
export interface FaultSuiteSubject {
  name: string;
  createFake(options?: FakeServerOptions): Promise<FakeServer>;
  createModel(fake: FakeServer, apiKey: string, settings: HttpProviderSettings): LanguageModel;
  /** Gemini sends whole function calls; the others stream the arguments in pieces. */
  toolArgumentsInPieces: boolean;
}

/** @internal The last part, which must be an error. */
export function errorOf(parts: StreamPart[]): HalError {
  const last = parts.at(-1);
  if (last?.type !== 'error') throw new Error(`expected an error part, got ${JSON.stringify(last)}`);
  return last.error;
}

const prompt: CallOptions['prompt'] = [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }];
const tools: CallOptions['tools'] = [
  {
    name: 'weather',
    description: 'Weather',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  },
];

/** The behaviours every HTTP adapter shares, run against its fake: streaming, usage, errors, faults, retries. */
export function describeProviderFaults(subject: FaultSuiteSubject): void {
  describe(`${subject.name} adapter: streaming, errors and faults`, () => {
    let fake: FakeServer;
    const apiKey = `key-${randomBytes(16).toString('hex')}`;
    const sleeps: number[] = [];
    const model = (settings: HttpProviderSettings = {}) =>
      subject.createModel(fake, apiKey, {
        sleep: async (milliseconds) => {
          sleeps.push(milliseconds);
        },
        ...settings,
      });
    const stream = async (settings?: HttpProviderSettings, options: Partial<CallOptions> = {}) => {
      const parts = await collectStreamParts((await model(settings).doStream({ prompt, ...options })).stream);
      // Whatever went wrong, the key must never reach an error a person or a log will see.
      for (const part of parts) {
        if (part.type === 'error') {
          expect(`${part.error.message} ${JSON.stringify(part.error.details)}`).not.toContain(apiKey);
        }
      }
      return parts;
    };

    beforeEach(async () => {
      sleeps.length = 0;
      fake = await subject.createFake();
    });
    afterEach(() => fake.close());

    it('streams text in pieces with usage', async () => {
      fake.enqueue({ text: 'Hello, operator.', chunks: 3, usage: { inputTokens: 11, outputTokens: 4 } });
      const parts = await stream();
      expect(parts[0]).toEqual({ type: 'stream-start' });
      expect(streamedText(parts)).toBe('Hello, operator.');
      expect(parts.filter((part) => part.type === 'text-delta')).toHaveLength(3);
      expect(parts.at(-1)).toMatchObject({
        type: 'finish',
        finishReason: 'stop',
        usage: { inputTokens: 11, outputTokens: 4 },
      });
    });

    it('leaves usage absent when none is reported', async () => {
      fake.enqueue({ text: 'x', usage: false });
      expect((await stream()).at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    });

    it('streams a tool call and emits it once complete', async () => {
      fake.enqueue({
        text: 'Checking.',
        toolCall: { name: 'weather', input: { city: 'Seoul', days: [1, 2] } },
        chunks: 4,
      });
      const parts = await stream({}, { tools });
      const deltas = parts.filter((part) => part.type === 'tool-input-delta');
      expect(deltas.length).toBe(subject.toolArgumentsInPieces ? 4 : 1);
      expect(parts.find((part) => part.type === 'tool-call')).toMatchObject({
        toolName: 'weather',
        input: { city: 'Seoul', days: [1, 2] },
      });
      expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
    });

    it.skipIf(!subject.toolArgumentsInPieces)('rejects tool arguments that are not JSON', async () => {
      fake.enqueue({ toolCall: { name: 'weather', input: {}, rawArguments: '{"city": Seo' } });
      const parts = await stream({}, { tools });
      expect(parts.some((part) => part.type === 'tool-call')).toBe(false);
      expect(errorOf(parts)).toMatchObject({
        code: 'provider_bad_response',
        message: expect.stringMatching(/not valid JSON/),
      });
    });

    it('maps 401 to provider_auth and keeps the key out of the message', async () => {
      fake.enqueue({
        error: { status: 401, message: `bad key ${apiKey} (Authorization: Bearer ${apiKey})` },
      });
      const error = errorOf(await stream());
      expect(error.code).toBe('provider_auth');
      expect(error.details).toMatchObject({ status: 401 });
      // Only the status and the error type reach the message: the body's text (which echoes the key) never does.
      expect(error.message).toMatch(/answered HTTP 401/);
      expect(error.message).not.toContain('bad key');
      expect(`${error.message} ${JSON.stringify(error.details)}`).not.toContain(apiKey);
      expect(fake.requests).toHaveLength(1);
      await expect(model().doGenerate({ prompt })).resolves.toBeDefined();
    });

    it('retries 429 with Retry-After and 5xx, then succeeds', async () => {
      fake.enqueue(
        { error: { status: 429, retryAfter: 3 } },
        { error: { status: 503 } },
        { text: 'finally' },
      );
      const parts = await stream();
      expect(streamedText(parts)).toBe('finally');
      expect(sleeps).toEqual([3000, 500]);
      expect(fake.requests).toHaveLength(3);
    });

    it('gives up after two retries, with status and retryAfterS', async () => {
      fake.enqueue(...Array.from({ length: 3 }, () => ({ error: { status: 429, retryAfter: 1 } })));
      const error = errorOf(await stream());
      expect(error).toMatchObject({
        code: 'provider_rate_limited',
        details: { status: 429, retryAfterS: 1 },
      });
      expect(fake.requests).toHaveLength(3);
    });

    it('maps 500 and 529 to provider_unavailable', async () => {
      fake.enqueue({ error: { status: 500 } }, { error: { status: 529 } });
      expect(errorOf(await stream({ maxRetries: 0 })).code).toBe('provider_unavailable');
      await expect(model({ maxRetries: 0 }).doGenerate({ prompt })).rejects.toMatchObject({
        code: 'provider_unavailable',
        details: { status: 529 },
      });
    });

    it('times out before the first byte', async () => {
      fake.enqueue({ stall: 'before-first-byte' }, { stall: 'before-first-byte' });
      expect(errorOf(await stream({ firstByteTimeoutMs: 200 })).code).toBe('provider_timeout');
      await expect(model({ firstByteTimeoutMs: 200 }).doGenerate({ prompt })).rejects.toMatchObject({
        code: 'provider_timeout',
      });
    });

    it('times out mid-stream after the text so far', async () => {
      fake.enqueue({ text: 'partial answer', stall: 'mid-stream' });
      const parts = await stream({ idleTimeoutMs: 500 });
      expect(streamedText(parts)).toBe('partial answer');
      expect(errorOf(parts).code).toBe('provider_timeout');
    });

    it('reports a cut stream after the text so far, never a half tool call', async () => {
      fake.enqueue(
        { text: 'so far', cut: true },
        { text: 'x', toolCall: { name: 'weather', input: { city: 'Seoul' } }, cut: true },
      );
      const first = await stream();
      expect(streamedText(first)).toBe('so far');
      expect(errorOf(first)).toMatchObject({
        code: 'provider_bad_response',
        message: expect.stringMatching(/cut/),
      });
      const second = await stream({}, { tools });
      expect(second.some((part) => part.type === 'tool-call')).toBe(false);
      expect(errorOf(second).code).toBe('provider_bad_response');
    });

    it('maps malformed chunks and bodies to provider_bad_response', async () => {
      fake.enqueue({ text: 'abc', malformed: true }, { malformed: true });
      expect(errorOf(await stream()).code).toBe('provider_bad_response');
      await expect(model().doGenerate({ prompt })).rejects.toMatchObject({ code: 'provider_bad_response' });
    });

    it('maps an error event inside a 200 stream by its type', async () => {
      fake.enqueue(
        { text: 'a', streamError: 'overloaded' },
        { text: 'b', streamError: 'rate_limit' },
        { text: 'c', streamError: 'invalid_request' },
      );
      const codes = [];
      for (let index = 0; index < 3; index += 1) codes.push(errorOf(await stream()).code);
      expect(codes).toEqual(['provider_unavailable', 'provider_rate_limited', 'provider_bad_response']);
      // Text had reached the consumer each time, so none of them was retried.
      expect(fake.requests).toHaveLength(3);
    });

    it('retries an overload or rate-limit event that came before any output, within the same budget', async () => {
      fake.enqueue(
        { streamError: 'overloaded' },
        { error: { status: 429, retryAfter: 0 } },
        { text: 'recovered' },
      );
      const parts = await stream();
      expect(streamedText(parts)).toBe('recovered');
      expect(parts.at(-1)).toMatchObject({ type: 'finish' });
      expect(fake.requests).toHaveLength(3);
      fake.enqueue(
        { streamError: 'rate_limit' },
        { streamError: 'rate_limit' },
        { streamError: 'rate_limit' },
      );
      expect(errorOf(await stream()).code).toBe('provider_rate_limited');
      expect(fake.requests).toHaveLength(6);
    });

    it('maps connection refused to provider_unavailable', async () => {
      await fake.close();
      expect(errorOf(await stream()).code).toBe('provider_unavailable');
      fake = await subject.createFake();
    });

    it('refuses a call whose signal is already aborted, without a request', async () => {
      const controller = new AbortController();
      controller.abort();
      await expect(model().doGenerate({ prompt, abortSignal: controller.signal })).rejects.toMatchObject({
        code: 'interrupted',
      });
      expect(errorOf(await stream({}, { abortSignal: controller.signal })).code).toBe('interrupted');
      expect(fake.requests).toHaveLength(0);
    });

    it('stops on abort with interrupted', async () => {
      fake.enqueue({ text: 'slow answer', stall: 'mid-stream' });
      const controller = new AbortController();
      const { stream: parts } = await model().doStream({ prompt, abortSignal: controller.signal });
      const reader = parts.getReader();
      let last: StreamPart | undefined;
      for (;;) {
        const { value } = await reader.read();
        if (!value) break;
        last = value;
        if (value.type === 'text-delta') controller.abort();
      }
      expect(last).toMatchObject({ type: 'error', error: { code: 'interrupted' } });
    });
  });
}
