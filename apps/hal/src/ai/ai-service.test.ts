import { createMemoryRoomStore } from '@hal-ai/rooms';
import type { CallOptions, Connection, LanguageModel, StreamPart } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../platform/logger.js';
import { type AiService, type AiServiceDeps, createAiService, type RoomConnections } from './ai-service.js';

function connection(id: string, name: string): Connection {
  return {
    id,
    name,
    provider: 'openai',
    auth: 'api_key',
    baseUrl: null,
    model: 'm',
    models: ['m'],
    identity: { role: '', traits: '', instructions: '' },
    tools: { preset: 'none', enabled: [] },
    reasoning: 'off',
    status: 'active',
    lastCheckedAt: null,
    lastError: null,
    secret: { hasKey: true, hint: '…' },
  } as Connection;
}

function replyModel(calls: CallOptions[]): LanguageModel {
  const parts: StreamPart[] = [
    { type: 'stream-start' },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: 'ok' },
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: 'stop' },
  ] as StreamPart[];
  return {
    provider: 'openai',
    modelId: 'm',
    doGenerate: () => Promise.reject(new Error('streams only')),
    async doStream(options) {
      calls.push(options);
      return {
        stream: new ReadableStream<StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  } as LanguageModel;
}

/** Connections in memory that count the reads the rooms make (each is a query in HAL). */
function countingConnections(list: Connection[]) {
  const reads = { list: 0, get: 0 };
  const listeners = new Set<Parameters<RoomConnections['onChange']>[0]>();
  const calls: CallOptions[] = [];
  let revision = 0;
  const connections: RoomConnections = {
    async list() {
      reads.list++;
      return list.map((entry) => ({ ...entry }));
    },
    async get(id) {
      reads.get++;
      return list.find((entry) => entry.id === id);
    },
    async languageModel() {
      return replyModel(calls);
    },
    async reportProviderError() {},
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async revision() {
      return revision;
    },
  };
  /** A change made here (announced to the listeners) or by another instance (`elsewhere`: only the revision moves). */
  const change = (next: Connection, where: 'here' | 'elsewhere' = 'here') => {
    list.splice(
      list.findIndex((entry) => entry.id === next.id),
      1,
      next,
    );
    revision++;
    if (where === 'here') for (const listener of listeners) listener({ type: 'updated', connection: next });
  };
  return { connections, reads, calls, change };
}

function service(connections: RoomConnections): AiService {
  const deps = {
    clock: { now: () => Date.now() },
    logger: createLogger({ level: 'silent' }),
    audit: { append: async () => undefined },
    vault: { redact: <T>(value: T) => value },
  } as unknown as AiServiceDeps;
  return createAiService({ deps, connections, store: createMemoryRoomStore(), skill: 'skill' });
}

describe('createAiService participants', () => {
  it('reads the connections once, not per post or per turn, until one of them changes', async () => {
    const fake = countingConnections([
      connection('c1', 'One'),
      connection('c2', 'Two'),
      connection('c3', 'Three'),
    ]);
    const ai = service(fake.connections);
    const unified = await ai.store.ensureUnifiedRoom();
    const operator = { id: 'op', username: 'admin' };
    for (let round = 0; round < 2; round++) {
      const posted = await ai.engine.postMessage({ roomId: unified.id, operator, text: `round ${round}` });
      expect(posted.turns).toHaveLength(3);
      await ai.engine.idle();
    }
    expect(fake.calls).toHaveLength(6);
    expect(fake.reads).toEqual({ list: 1, get: 0 });

    // A change (here: c3 disabled) is seen by the next post.
    fake.change({ ...connection('c3', 'Three'), status: 'disabled' });
    const after = await ai.engine.postMessage({ roomId: unified.id, operator, text: 'again' });
    expect(after.turns.map((turn) => turn.connectionId)).toEqual(['c1', 'c2']);
    expect(fake.reads.list).toBe(2);
    await ai.engine.idle();

    // A change another instance made (no event here, only the shared revision moved) is seen by the next post too.
    fake.change({ ...connection('c2', 'Two'), status: 'disabled' }, 'elsewhere');
    const later = await ai.engine.postMessage({ roomId: unified.id, operator, text: 'once more' });
    expect(later.turns.map((turn) => turn.connectionId)).toEqual(['c1']);
    expect(fake.reads.list).toBe(3);
    await ai.close();
  });
});
