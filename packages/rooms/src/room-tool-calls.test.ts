import { HalError } from '@hal-ai/spec';
import { createToolRegistry, defineTool } from '@hal-ai/tools';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { ActionRecord } from './room-store.js';
import { createToolCalls, type ToolCallOrigin } from './room-tool-calls.js';
import { createTurnRead, type TurnRead } from './room-turn-read.js';

const registry = createToolRegistry<{ runs: string[] }>([
  defineTool({
    name: 'look',
    description: 'Read something.',
    risk: 'read',
    args: v.object({ what: v.string() }),
    execute: (ctx: { runs: string[] }, args) => {
      ctx.runs.push(args.what);
      return { seen: args.what };
    },
  }),
  defineTool({
    name: 'change',
    description: 'Change something.',
    risk: 'write',
    args: v.object({ to: v.string() }),
    execute: () => ({ changed: true }),
  }),
]);

function setup(enabled: string[] = ['look', 'change']) {
  const context = { runs: [] as string[] };
  const proposed: Array<{ tool: string; args: unknown; read: TurnRead }> = [];
  const calls = createToolCalls({
    registry,
    toolContext: () => context,
    propose: async (input) => {
      // What the turn had read when it proposed, as the proposal receives it (copied: it keeps growing).
      proposed.push({
        tool: input.tool.name,
        args: input.args,
        read: { context: [...input.read.context], tools: [...input.read.tools] },
      });
      return { id: `action_${proposed.length}` } as ActionRecord;
    },
  });
  const origin: ToolCallOrigin = {
    roomId: 'r',
    turnId: 't',
    connectionId: 'c',
    toolSelection: { preset: 'custom', enabled },
    operator: null,
    signal: new AbortController().signal,
    read: createTurnRead(),
  };
  return { calls, context, proposed, origin };
}

const call = (toolName: string, input: unknown, toolCallId = toolName) => ({
  type: 'tool-call' as const,
  toolCallId,
  toolName,
  input,
});

describe('tool calls of a model response', () => {
  it('runs reads at once and turns writes into proposals that receive what the turn read', async () => {
    const { calls, context, proposed, origin } = setup();
    const outcome = await calls.run([call('look', { what: 'disk' }), call('change', { to: 'on' })], origin, {
      used: 0,
      limit: 20,
    });
    expect(context.runs).toEqual(['disk']);
    expect(outcome.results).toEqual([
      { type: 'tool-result', toolCallId: 'look', toolName: 'look', output: { seen: 'disk' } },
      {
        type: 'tool-result',
        toolCallId: 'change',
        toolName: 'change',
        output: 'awaiting operator approval (action action_1)',
      },
    ]);
    expect(outcome.proposals.map((action) => action.id)).toEqual(['action_1']);
    expect(proposed).toEqual([
      { tool: 'change', args: { to: 'on' }, read: { context: [], tools: [{ name: 'look', ok: true }] } },
    ]);
  });

  it('refuses unknown, disabled and invalid calls with error results, and nothing over the limit', async () => {
    const { calls, context, proposed, origin } = setup(['look']);
    const budget = { used: 17, limit: 20 };
    const outcome = await calls.run(
      [
        call('nope', {}),
        call('change', { to: 'x' }),
        call('look', { what: 1 }, 'bad'),
        call('look', { what: 'late' }, 'over'),
      ],
      origin,
      budget,
    );
    expect(
      outcome.results.map((result) => (result.output as { error: { code: string } }).error.code),
    ).toEqual(['not_found', 'forbidden', 'validation_failed', 'tool_limit']);
    expect(outcome.results.every((result) => result.isError)).toBe(true);
    expect(outcome.capped).toBe(true);
    expect(budget.used).toBe(20);
    expect(context.runs).toEqual([]);
    expect(proposed).toEqual([]);
  });

  it('runs nothing once the turn is cancelled', async () => {
    const { calls, context, origin } = setup();
    const controller = new AbortController();
    controller.abort();
    const outcome = await calls.run(
      [call('look', { what: 'x' })],
      { ...origin, signal: controller.signal },
      {
        used: 0,
        limit: 20,
      },
    );
    expect(context.runs).toEqual([]);
    expect(outcome.results[0]).toMatchObject({ isError: true, output: { error: { code: 'interrupted' } } });
  });
});

describe('a write tool that may run at once', () => {
  const fetches: string[] = [];
  const webRegistry = createToolRegistry<object>([
    defineTool({
      name: 'web_fetch',
      description: 'Fetch a page.',
      risk: 'write',
      args: v.object({ url: v.string() }),
      runsAtOnce: (_context, { url }) => {
        if (url.includes('10.0.0.1')) throw new HalError('web_blocked', 'private address');
        return url.startsWith('https://allowed.example/');
      },
      execute: (_context, { url }) => {
        fetches.push(url);
        return { text: `page ${url}` };
      },
    }),
  ]);

  it('runs for the arguments it accepts, proposes the rest, and refuses a blocked call without a proposal', async () => {
    const proposed: string[] = [];
    const calls = createToolCalls({
      registry: webRegistry,
      toolContext: () => ({}),
      propose: async (input) => {
        proposed.push((input.args as { url: string }).url);
        return { id: 'action_1' } as ActionRecord;
      },
    });
    const read = createTurnRead();
    const outcome = await calls.run(
      [
        call('web_fetch', { url: 'https://allowed.example/a' }, 'a'),
        call('web_fetch', { url: 'https://other.example/b' }, 'b'),
        call('web_fetch', { url: 'http://10.0.0.1/' }, 'c'),
      ],
      {
        roomId: 'r',
        turnId: 't',
        connectionId: 'c',
        toolSelection: { preset: 'all' },
        operator: null,
        signal: new AbortController().signal,
        read,
      },
      { used: 0, limit: 20 },
    );
    expect(fetches).toEqual(['https://allowed.example/a']);
    expect(outcome.results[0]).toMatchObject({
      toolCallId: 'a',
      output: { text: 'page https://allowed.example/a' },
    });
    expect(outcome.results[1]).toMatchObject({
      toolCallId: 'b',
      output: 'awaiting operator approval (action action_1)',
    });
    expect(outcome.results[2]).toMatchObject({
      toolCallId: 'c',
      isError: true,
      output: { error: { code: 'web_blocked' } },
    });
    expect(proposed).toEqual(['https://other.example/b']);
    expect(read.read.tools).toEqual([{ name: 'web_fetch', ok: true }]);
  });
});
