import type { RoomMessage } from '@hal-ai/spec';
import { createToolRegistry, defineTool } from '@hal-ai/tools';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createTurnRead, readWebContent } from './room-turn-read.js';

const message = (id: string, content: RoomMessage['content']): RoomMessage => ({
  id,
  roomId: 'r',
  seq: 1,
  role: 'user',
  connectionId: null,
  model: null,
  content,
  status: 'complete',
  error: null,
  relayDepth: 0,
  relayedFrom: null,
  usage: null,
  createdAt: '2026-01-01T00:00:00.000Z',
});

describe('createTurnRead', () => {
  it("collects the context blocks of the turn's prompts once each, and the read tools it ran", () => {
    const recorder = createTurnRead();
    const page = {
      type: 'context' as const,
      source: 'web' as const,
      url: 'http://127.0.0.1/',
      finalUrl: 'http://127.0.0.1/',
      title: 'A page',
      text: 'page',
      truncated: false,
      fetchedAt: '2026-01-01T00:00:00.000Z',
    };
    const first = message('m1', [{ type: 'text', text: 'see' }, page]);
    recorder.addHistory([first]);
    recorder.addToolRun('hal_servers_list', true);
    // The next model call of the turn sees the same message again, and a new one.
    recorder.addHistory([first, message('m2', [{ type: 'text', text: 'plain' }])]);
    recorder.addToolRun('hal_jobs_list', false);
    expect(recorder.read.context).toEqual([page]);
    expect(recorder.read.tools).toEqual([
      { name: 'hal_servers_list', ok: true },
      { name: 'hal_jobs_list', ok: false },
    ]);
  });

  it('starts a relayed turn with what the source turn read, and leaves the source as it was', () => {
    const source = createTurnRead();
    source.addToolRun('web_fetch', true);
    const relayed = createTurnRead(source.read);
    relayed.addToolRun('hal_servers_list', true);
    expect(relayed.read.tools).toEqual([
      { name: 'web_fetch', ok: true },
      { name: 'hal_servers_list', ok: true },
    ]);
    expect(source.read.tools).toEqual([{ name: 'web_fetch', ok: true }]);
  });
});

describe('readWebContent', () => {
  const registry = createToolRegistry([
    defineTool({
      name: 'web_fetch',
      description: 'web',
      risk: 'write',
      args: v.object({}),
      openWorld: true,
      execute: () => 1,
    }),
    defineTool({ name: 'look', description: 'local', risk: 'read', args: v.object({}), execute: () => 1 }),
  ]);

  it('counts a successful run of an open-world tool, not a failed one nor a local read', () => {
    expect(readWebContent({ context: [], tools: [{ name: 'web_fetch', ok: true }] }, registry)).toBe(true);
    expect(readWebContent({ context: [], tools: [{ name: 'web_fetch', ok: false }] }, registry)).toBe(false);
    expect(readWebContent({ context: [], tools: [{ name: 'look', ok: true }] }, registry)).toBe(false);
  });
});
