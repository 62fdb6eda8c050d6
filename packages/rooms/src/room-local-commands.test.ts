import { HalError } from '@hal-ai/spec';
import { createToolRegistry, defineTool } from '@hal-ai/tools';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { RoomParticipant } from './room-engine-types.js';
import { createLocalCommands } from './room-local-commands.js';
import { SLASH_COMMANDS } from './room-slash-commands.js';
import { createScriptedModel } from './testing/scripted-language-model.js';

const registry = createToolRegistry([
  defineTool({ name: 'look', description: 'Read.', risk: 'read', args: v.object({}), execute: () => ({}) }),
  defineTool({
    name: 'change',
    description: 'Write.',
    risk: 'write',
    args: v.object({}),
    execute: () => ({}),
  }),
]);
const participant = (id: string, name: string, enabled: string[]): RoomParticipant => ({
  id,
  name,
  active: true,
  identity: { role: '', traits: '', instructions: '' },
  model: createScriptedModel({ steps: [] }),
  modelId: 'm',
  toolSelection: { preset: 'custom', enabled },
});
const people = [participant('a', 'Alpha', ['look', 'change']), participant('b', 'Beta', [])];
const operator = { id: 'op', username: 'admin' };
const unified = { id: 'u', kind: 'unified' as const, connectionId: null };
const direct = { id: 'd', kind: 'direct' as const, connectionId: 'a' };

function setup(setModel?: (id: string, model: string) => string | undefined) {
  const resets: string[] = [];
  const run = createLocalCommands({
    registry,
    listParticipants: () => people,
    resolveParticipant: (id) => people.find((entry) => entry.id === id),
    ...(setModel ? { commands: { setModel } } : {}),
    resetRoom: async (roomId) => {
      resets.push(roomId);
      return { cancelled: [{}, {}] };
    },
  });
  return { run, resets };
}

describe('local slash commands', () => {
  it('/help lists every command; /tools lists what each active model may use', async () => {
    const { run } = setup();
    const help = await run(unified, 'help', {}, operator);
    expect(help.split('\n')).toHaveLength(SLASH_COMMANDS.length);
    expect(await run(unified, 'tools', {}, operator)).toBe(
      'Alpha: look (read), change (write)\nBeta: no tools',
    );
    expect(await run(direct, 'tools', {}, operator)).toBe('Alpha: look (read), change (write)');
  });

  it('/model goes to the host in a model room only', async () => {
    const calls: string[] = [];
    const { run } = setup((id, model) => {
      calls.push(`${id}:${model}`);
      return undefined;
    });
    expect(await run(direct, 'model', { name: 'gpt-5' }, operator)).toBe('Model switched to gpt-5.');
    expect(calls).toEqual(['a:gpt-5']);
    await expect(run(unified, 'model', { name: 'x' }, operator)).rejects.toMatchObject({
      code: 'command_needs_direct_room',
    });
    await expect(setup().run(direct, 'model', { name: 'x' }, operator)).rejects.toBeInstanceOf(HalError);
  });

  it('/reset resets the room and says how many proposals it cancelled', async () => {
    const { run, resets } = setup();
    expect(await run(direct, 'reset', {}, operator)).toBe(
      'New conversation: history cleared, 2 pending proposal(s) cancelled.',
    );
    expect(resets).toEqual(['d']);
  });
});
