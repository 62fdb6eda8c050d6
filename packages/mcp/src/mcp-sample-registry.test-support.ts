import { HalError } from '@hal-ai/spec';
import { createToolRegistry, defineTool, type ToolRegistry } from '@hal-ai/tools';
import * as v from 'valibot';

/** What the sample tools run with: a counter the tests read to prove writes never executed. */
export interface SampleContext {
  effects: { writes: number; reads: number };
  actor: string;
}

/** A small registry with one tool per tier plus a failing read tool. */
export function createSampleRegistry(): ToolRegistry<SampleContext> {
  return createToolRegistry<SampleContext>([
    defineTool({
      name: 'sample_echo',
      description: 'Echoes a message back.',
      risk: 'read',
      title: 'Echo',
      args: v.object({
        message: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
        times: v.optional(v.number(), 1),
      }),
      execute: (context: SampleContext, { message, times }) => {
        context.effects.reads += 1;
        return { echo: message.repeat(times), actor: context.actor };
      },
    }),
    defineTool({
      name: 'sample_list',
      description: 'Returns a bare array (wrapped for structuredContent).',
      risk: 'read',
      args: v.object({}),
      execute: () => ['a', 'b'],
    }),
    defineTool({
      name: 'sample_broken',
      description: 'Always fails with a HalError.',
      risk: 'read',
      args: v.object({}),
      execute: () => {
        throw new HalError('conflict', 'The sample is broken on purpose');
      },
    }),
    defineTool({
      name: 'sample_note_add',
      description: 'Adds a note (write).',
      risk: 'write',
      args: v.object({ text: v.pipe(v.string(), v.minLength(1)) }),
      execute: (context: SampleContext) => {
        context.effects.writes += 1;
        return { added: true };
      },
    }),
    defineTool({
      name: 'sample_server_delete',
      description: 'Deletes a server (high).',
      risk: 'high',
      args: v.object({ id: v.pipe(v.string(), v.minLength(1)) }),
      identifiers: ({ id }) => [id],
      execute: (context: SampleContext) => {
        context.effects.writes += 1;
        return { deleted: true };
      },
    }),
  ]);
}
