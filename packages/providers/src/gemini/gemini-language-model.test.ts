import { randomBytes } from 'node:crypto';
import type { GenerateContentParameters } from '@google/genai';
import type { CallOptions } from '@hal-ai/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeProviderFaults } from '../shared/provider-fault-suite.test-support.js';
import { collectStreamParts, createFakeGemini, type FakeServer } from '../testing/index.js';
import { buildGeminiGenerateBody } from './gemini-language-model.js';
import { createGemini } from './gemini-provider.js';

describeProviderFaults({
  name: 'gemini',
  createFake: createFakeGemini,
  createModel: (fake, apiKey, settings) =>
    createGemini({ apiKey, baseUrl: fake.url, ...settings }).languageModel('gemini-test'),
  toolArgumentsInPieces: false,
});

const prompt: CallOptions['prompt'] = [
  { role: 'system', content: 'You are HAL.' },
  { role: 'user', content: [{ type: 'text', text: 'Weather in Seoul and Busan?' }] },
  {
    role: 'assistant',
    content: [
      { type: 'tool-call', toolCallId: 'a', toolName: 'weather', input: { city: 'Seoul' } },
      { type: 'tool-call', toolCallId: 'b', toolName: 'weather', input: { city: 'Busan' } },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'b', toolName: 'weather', output: 'rain' },
      { type: 'tool-result', toolCallId: 'a', toolName: 'weather', output: { sky: 'clear' } },
    ],
  },
];

describe('gemini request bodies, ids and models', () => {
  let fake: FakeServer;
  const apiKey = `key-${randomBytes(16).toString('hex')}`;
  beforeEach(async () => {
    fake = await createFakeGemini({
      models: [
        { id: 'gemini-a', displayName: 'A', contextWindow: 1000 },
        { id: 'gemini-b' },
        { id: 'gemini-c' },
      ],
    });
  });
  afterEach(() => fake.close());

  it('builds a body the SDK types accept, with responses in call order and Gemini schemas', () => {
    const body = buildGeminiGenerateBody({
      prompt,
      tools: [
        {
          name: 'weather',
          description: 'Weather',
          inputSchema: {
            type: 'object',
            properties: { city: { type: 'string', default: 'Seoul' } },
            additionalProperties: false,
          },
        },
        { name: 'now', description: 'Time', inputSchema: { type: 'object', properties: {} } },
      ],
      toolChoice: 'required',
      maxOutputTokens: 64,
    });
    const typed: GenerateContentParameters = {
      model: 'gemini-test',
      contents: body.contents,
      config: {
        systemInstruction: body.systemInstruction,
        tools: body.tools,
        toolConfig: body.toolConfig as never,
      },
    };
    expect(typed.model).toBe('gemini-test');
    expect(body).toMatchInlineSnapshot(`
      {
        "contents": [
          {
            "parts": [
              {
                "text": "Weather in Seoul and Busan?",
              },
            ],
            "role": "user",
          },
          {
            "parts": [
              {
                "functionCall": {
                  "args": {
                    "city": "Seoul",
                  },
                  "name": "weather",
                },
              },
              {
                "functionCall": {
                  "args": {
                    "city": "Busan",
                  },
                  "name": "weather",
                },
              },
            ],
            "role": "model",
          },
          {
            "parts": [
              {
                "functionResponse": {
                  "name": "weather",
                  "response": {
                    "sky": "clear",
                  },
                },
              },
              {
                "functionResponse": {
                  "name": "weather",
                  "response": {
                    "result": "rain",
                  },
                },
              },
            ],
            "role": "user",
          },
        ],
        "generationConfig": {
          "maxOutputTokens": 64,
        },
        "systemInstruction": {
          "parts": [
            {
              "text": "You are HAL.",
            },
          ],
        },
        "toolConfig": {
          "functionCallingConfig": {
            "mode": "ANY",
          },
        },
        "tools": [
          {
            "functionDeclarations": [
              {
                "description": "Weather",
                "name": "weather",
                "parameters": {
                  "properties": {
                    "city": {
                      "type": "string",
                    },
                  },
                  "type": "object",
                },
              },
              {
                "description": "Time",
                "name": "now",
              },
            ],
          },
        ],
      }
    `);
  });

  it('streams to :streamGenerateContent?alt=sse with the key header and generated call ids', async () => {
    let counter = 0;
    const model = createGemini({
      apiKey,
      baseUrl: fake.url,
      generateId: () => `id-${++counter}`,
    }).languageModel('models/gemini-test');
    fake.enqueue({
      toolCalls: [
        { name: 'weather', input: { city: 'Seoul' } },
        { name: 'weather', input: { city: 'Busan' } },
      ],
    });
    const parts = await collectStreamParts((await model.doStream({ prompt })).stream);
    expect(parts.filter((part) => part.type === 'tool-call')).toEqual([
      { type: 'tool-call', toolCallId: 'id-1', toolName: 'weather', input: { city: 'Seoul' } },
      { type: 'tool-call', toolCallId: 'id-2', toolName: 'weather', input: { city: 'Busan' } },
    ]);
    expect(fake.requests.at(-1)).toMatchObject({
      path: '/v1beta/models/gemini-test:streamGenerateContent',
      query: { alt: 'sse' },
      headers: { 'x-goog-api-key': apiKey },
    });
  });

  it('generates without streaming', async () => {
    fake.enqueue({ text: 'Sunny.', usage: { inputTokens: 5, outputTokens: 2 } });
    const result = await createGemini({ apiKey, baseUrl: fake.url })
      .languageModel('gemini-test')
      .doGenerate({ prompt });
    expect(result).toMatchObject({
      content: [{ type: 'text', text: 'Sunny.' }],
      finishReason: 'stop',
      usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 },
    });
    expect(fake.requests.at(-1)?.path).toBe('/v1beta/models/gemini-test:generateContent');
  });

  it('lists models across pages without the models/ prefix', async () => {
    const models = await createGemini({ apiKey, baseUrl: fake.url }).listModels();
    expect(models.map((model) => model.id)).toEqual(['gemini-a', 'gemini-b', 'gemini-c']);
    expect(models[0]).toEqual({ id: 'gemini-a', displayName: 'A', contextWindow: 1000 });
  });
});
