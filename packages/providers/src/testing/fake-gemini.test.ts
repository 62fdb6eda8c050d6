import { randomBytes } from 'node:crypto';
import { ApiError, GoogleGenAI } from '@google/genai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFakeGemini } from './fake-gemini.js';
import type { FakeServer } from './fake-server.js';

describe('createFakeGemini with the official SDK', () => {
  let fake: FakeServer;
  let ai: GoogleGenAI;
  const apiKey = `test-${randomBytes(12).toString('hex')}`;

  beforeEach(async () => {
    fake = await createFakeGemini({
      apiKey,
      models: [{ id: 'gemini-a' }, { id: 'gemini-b' }, { id: 'gemini-c' }],
    });
    ai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: fake.url, retryOptions: { attempts: 1 } } });
  });
  afterEach(() => fake.close());

  it('streams text and a function call with usage metadata', async () => {
    fake.enqueue({
      text: 'Looking it up.',
      toolCall: { name: 'lookup', input: { city: 'Seoul' } },
      usage: { inputTokens: 9, outputTokens: 3 },
    });
    let text = '';
    const calls: unknown[] = [];
    let usage: unknown;
    for await (const chunk of await ai.models.generateContentStream({
      model: 'gemini-x',
      contents: 'weather?',
    })) {
      text += chunk.text ?? '';
      calls.push(...(chunk.functionCalls ?? []));
      usage = chunk.usageMetadata ?? usage;
    }
    expect(text).toBe('Looking it up.');
    expect(calls).toMatchObject([{ name: 'lookup', args: { city: 'Seoul' } }]);
    expect(usage).toMatchObject({ promptTokenCount: 9, candidatesTokenCount: 3, totalTokenCount: 12 });
    expect(fake.requests.at(-1)).toMatchObject({ path: '/v1beta/models/gemini-x:streamGenerateContent' });
  });

  it('answers generateContent and pages the model list', async () => {
    fake.enqueue({ text: 'plain' });
    const response = await ai.models.generateContent({ model: 'gemini-x', contents: 'hi' });
    expect(response.text).toBe('plain');
    const names: string[] = [];
    for await (const model of await ai.models.list({ config: { pageSize: 2 } })) names.push(model.name ?? '');
    expect(names).toEqual(['models/gemini-a', 'models/gemini-b', 'models/gemini-c']);
  });

  it('raises ApiError with the status for 401, 429 and 503, and for an in-stream error', async () => {
    const bad = new GoogleGenAI({
      apiKey: 'wrong',
      httpOptions: { baseUrl: fake.url, retryOptions: { attempts: 1 } },
    });
    await expect(bad.models.generateContent({ model: 'm', contents: 'x' })).rejects.toMatchObject({
      status: 401,
    });
    fake.enqueue(
      { error: { status: 429 } },
      { error: { status: 503 } },
      { error: { status: 529 } },
      { text: 'a', streamError: 'overloaded' },
    );
    await expect(ai.models.generateContent({ model: 'm', contents: 'x' })).rejects.toBeInstanceOf(ApiError);
    await expect(ai.models.generateContent({ model: 'm', contents: 'x' })).rejects.toMatchObject({
      status: 503,
    });
    await expect(ai.models.generateContent({ model: 'm', contents: 'x' })).rejects.toMatchObject({
      status: 529,
    });
    const consume = async () => {
      for await (const _chunk of await ai.models.generateContentStream({ model: 'm', contents: 'x' })) {
        // drain
      }
    };
    await expect(consume()).rejects.toThrow(/overloaded/);
  });
});
