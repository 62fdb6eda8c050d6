import { randomBytes } from 'node:crypto';
import { createFakeGemini, type FakeRequest, type FakeServer } from '@hal-ai/providers/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRoomTestApp, type RoomTestApp } from './room-app.test-support.js';

const ai = (path: string) => `/ops/api/ai${path}`;
const generations = (requests: FakeRequest[]) => requests.filter((request) => request.method === 'POST');

describe('a Gemini 3 tool loop through HAL (thought signatures, reasoning per connection)', () => {
  let t: RoomTestApp;
  let gemini: FakeServer;
  let geminiId: string;

  beforeEach(async () => {
    t = await createRoomTestApp();
    const apiKey = `gm-${randomBytes(16).toString('hex')}`;
    gemini = await createFakeGemini({ apiKey, models: [{ id: 'gemini-3-pro-preview' }] });
    const created = await t.call('POST', ai('/connections'), {
      provider: 'gemini',
      name: 'Gemini',
      auth: 'api_key',
      apiKey,
      baseUrl: gemini.url,
      model: 'gemini-3-pro-preview',
      tools: { preset: 'read_only' },
      reasoning: 'high',
    });
    expect(created.status).toBe(201);
    expect(created.body.connection).toMatchObject({ status: 'active', reasoning: 'high' });
    geminiId = created.body.connection.id;
  });
  afterEach(async () => {
    await t.close();
    await gemini.close();
  });

  it('sends the signature back on its call: the second step is accepted, once, and the reply is stored', async () => {
    const rooms = (await t.call('GET', ai('/rooms'))).body.rooms as Array<{
      id: string;
      connectionId: string;
    }>;
    const room = rooms.find((candidate) => candidate.connectionId === geminiId);
    if (!room) throw new Error('no direct room');
    gemini.enqueue(
      { text: 'Checking.', toolCall: { name: 'hal_servers_list', input: {} } },
      { text: 'One server, all healthy.' },
    );
    expect((await t.call('POST', ai(`/rooms/${room.id}/messages`), { text: 'Servers?' })).status).toBe(202);
    await t.ai.engine.idle();

    const [first, second, ...more] = generations(gemini.requests);
    expect(more).toEqual([]);
    // The connection's reasoning reaches every model call, in the shape Gemini 3 expects.
    expect((first?.body as { generationConfig?: unknown } | undefined)?.generationConfig).toMatchObject({
      thinkingConfig: { thinkingLevel: 'high' },
    });
    const contents = (
      second?.body as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> } | undefined
    )?.contents;
    const modelTurn = contents?.find((content) => content.role === 'model');
    const call = modelTurn?.parts.find((part) => part.functionCall);
    expect(call).toMatchObject({
      functionCall: { name: 'hal_servers_list' },
      thoughtSignature: expect.any(String),
    });

    const { messages } = (await t.call('GET', ai(`/rooms/${room.id}/messages`))).body as {
      messages: Array<{ role: string; status: string; content: Array<Record<string, unknown>> }>;
    };
    const replies = messages.filter((message) => message.role === 'assistant');
    expect(replies.map((message) => message.status)).toEqual(['complete', 'complete']);
    // Stored in SQLite and read back unchanged: the signature the second request carried.
    const storedCall = replies[0]?.content.find((block) => block.type === 'tool-call');
    expect(storedCall?.providerMetadata).toEqual({ gemini: { thoughtSignature: call?.thoughtSignature } });
    expect(replies[1]?.content).toContainEqual(
      expect.objectContaining({ type: 'text', text: 'One server, all healthy.' }),
    );
  });

  it('reasoning is changed by PATCH and checked: an unknown level is validation_failed and changes nothing', async () => {
    const bad = await t.call('PATCH', ai(`/connections/${geminiId}`), { reasoning: 'extreme' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    const changed = await t.call('PATCH', ai(`/connections/${geminiId}`), { reasoning: 'off' });
    expect(changed.body.connection.reasoning).toBe('off');
    const listed = (await t.call('GET', ai('/connections'))).body.connections as Array<{
      id: string;
      reasoning: string;
    }>;
    expect(listed.find((connection) => connection.id === geminiId)?.reasoning).toBe('off');
    expect(
      listed.filter((connection) => connection.id !== geminiId).map((connection) => connection.reasoning),
    ).toEqual(['off', 'off']);
    const refused = await t.call('POST', ai('/connections'), {
      provider: 'gemini',
      name: 'Other',
      auth: 'api_key',
      apiKey: 'k',
      baseUrl: gemini.url,
      reasoning: 'max',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('validation_failed');
    expect((await t.call('GET', ai('/connections'))).body.connections).toHaveLength(3);
  });
});
