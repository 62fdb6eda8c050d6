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

describe('createFakeGemini refuses what Gemini 3 refuses (official SDK as the client)', () => {
  let fake: FakeServer;
  let ai: GoogleGenAI;
  const apiKey = `test-${randomBytes(12).toString('hex')}`;
  const tools = [
    { functionDeclarations: [{ name: 'lookup', parametersJsonSchema: { type: 'object', properties: {} } }] },
  ];

  beforeEach(async () => {
    fake = await createFakeGemini({ apiKey });
    ai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: fake.url, retryOptions: { attempts: 1 } } });
  });
  afterEach(() => fake.close());

  async function firstStep(model: string) {
    fake.enqueue({
      toolCalls: [
        { name: 'lookup', input: { city: 'Seoul' } },
        { name: 'lookup', input: {} },
      ],
    });
    const response = await ai.models.generateContent({ model, contents: 'weather?', config: { tools } });
    const content = response.candidates?.[0]?.content;
    if (!content) throw new Error('no content');
    return content;
  }

  function continuation(modelTurn: { role?: string; parts?: unknown[] }) {
    return [
      { role: 'user', parts: [{ text: 'weather?' }] },
      modelTurn,
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'lookup', response: { sky: 'clear' } } },
          { functionResponse: { name: 'lookup', response: { sky: 'rain' } } },
        ],
      },
    ] as never;
  }

  it('signs the first function call of a gemini-3 step and accepts it sent back unchanged', async () => {
    const content = await firstStep('gemini-3-pro-preview');
    const [first, second] = content.parts ?? [];
    expect(first?.thoughtSignature).toMatch(/^[A-Za-z0-9+/=]{32,}$/);
    expect(second?.thoughtSignature).toBeUndefined();
    fake.enqueue({ text: 'Clear in Seoul.' });
    const next = await ai.models.generateContent({
      model: 'gemini-3-pro-preview',
      contents: continuation(content),
      config: { tools },
    });
    expect(next.text).toBe('Clear in Seoul.');
  });

  it('refuses a gemini-3 continuation whose function call lost its signature with 400 INVALID_ARGUMENT', async () => {
    const content = await firstStep('gemini-3-pro-preview');
    const stripped = {
      ...content,
      parts: content.parts?.map(({ thoughtSignature: _dropped, ...part }) => part),
    };
    const refused = ai.models.generateContent({
      model: 'gemini-3-pro-preview',
      contents: continuation(stripped),
      config: { tools },
    });
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('Function call is missing a thought_signature in functionCall parts'),
    });
    const forged = {
      ...content,
      parts: content.parts?.map((part, index) =>
        index === 0 ? { ...part, thoughtSignature: randomBytes(48).toString('base64') } : part,
      ),
    };
    await expect(
      ai.models.generateContent({
        model: 'gemini-3-pro-preview',
        contents: continuation(forged),
        config: { tools },
      }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('Thought signature is not valid'),
    });
  });

  it('checks only the current turn, and only on models that sign', async () => {
    const content = await firstStep('gemini-2.5-flash');
    expect(content.parts?.[0]?.thoughtSignature).toBeUndefined();
    fake.enqueue({ text: 'ok' });
    const older = [
      ...(continuation({
        role: 'model',
        parts: [{ functionCall: { name: 'lookup', args: {} } }],
      }) as unknown[]),
      { role: 'model', parts: [{ text: 'Done.' }] },
      { role: 'user', parts: [{ text: 'and now?' }] },
    ];
    const next = await ai.models.generateContent({
      model: 'gemini-3-flash-preview',
      contents: older as never,
      config: { tools },
    });
    expect(next.text).toBe('ok');
  });

  it('streams a signature on an empty last text part, and checks thinkingConfig as the API does', async () => {
    fake.enqueue({ text: 'Plain answer.', usage: { inputTokens: 4, outputTokens: 3, reasoningTokens: 20 } });
    const parts: Array<{ text?: string; thoughtSignature?: string }> = [];
    let usage: unknown;
    for await (const chunk of await ai.models.generateContentStream({
      model: 'gemini-3-flash-preview',
      contents: 'hi',
      config: { thinkingConfig: { thinkingLevel: 'MEDIUM' as never } },
    })) {
      parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
      usage = chunk.usageMetadata ?? usage;
    }
    expect(parts.map((part) => part.text).join('')).toBe('Plain answer.');
    expect(parts.at(-1)).toMatchObject({ text: '', thoughtSignature: expect.any(String) });
    expect(usage).toMatchObject({ thoughtsTokenCount: 20, totalTokenCount: 27 });
    await expect(
      ai.models.generateContent({
        model: 'gemini-2.5-flash',
        contents: 'hi',
        config: { thinkingConfig: { thinkingLevel: 'LOW' as never } },
      }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('Thinking level is not supported'),
    });
    await expect(
      ai.models.generateContent({
        model: 'gemini-3-pro-preview',
        contents: 'hi',
        config: { thinkingConfig: { thinkingLevel: 'MEDIUM' as never } },
      }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(
      ai.models.generateContent({
        model: 'gemini-3-flash-preview',
        contents: 'hi',
        config: { thinkingConfig: { thinkingLevel: 'LOW' as never, thinkingBudget: 1024 } },
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('only one of') });
  });
});
