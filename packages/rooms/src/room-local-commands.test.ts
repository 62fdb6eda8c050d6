import { HalError } from '@hal-ai/spec';
import { createToolRegistry, defineTool } from '@hal-ai/tools';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { RoomParticipant } from './room-engine-types.js';
import { createLocalCommands } from './room-local-commands.js';
import { noteText } from './room-notes.js';
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

function setup(setModel?: (id: string, model: string) => { name: string; model: string } | undefined) {
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
    expect(help.code).toBe('command_help');
    const lines = noteText(help).split('\n');
    expect(lines).toHaveLength(SLASH_COMMANDS.length);
    expect(lines[2]).toBe("/model <name> — Switch this room's connection to another checked model.");
    expect(await run(unified, 'tools', {}, operator)).toEqual({
      code: 'command_tools',
      params: { tools: 'Alpha: look (read), change (write)\nBeta: —' },
    });
    expect(await run(direct, 'tools', {}, operator)).toEqual({
      code: 'command_tools',
      params: { tools: 'Alpha: look (read), change (write)' },
    });
    const nobody = createLocalCommands({
      registry,
      listParticipants: () => [],
      resolveParticipant: () => undefined,
      resetRoom: async () => ({ cancelled: [] }),
    });
    const none = await nobody(unified, 'tools', {}, operator);
    expect(none).toEqual({ code: 'command_tools_none', params: {} });
    expect(noteText(none)).toBe('No active model.');
    expect(await nobody(direct, 'reset', {}, operator)).toEqual({ code: 'command_reset', params: {} });
  });

  it('/model goes to the host in a model room only', async () => {
    const calls: string[] = [];
    const { run } = setup((id, model) => {
      calls.push(`${id}:${model}`);
      return model === 'gpt-5' ? undefined : { name: 'Alpha (renamed)', model };
    });
    // Without an answer from the host, the note names the room's participant and the model asked for.
    const switched = await run(direct, 'model', { name: 'gpt-5' }, operator);
    expect(switched).toEqual({ code: 'command_model', params: { name: 'Alpha', model: 'gpt-5' } });
    expect(noteText(switched)).toBe('Alpha now uses gpt-5.');
    expect(await run(direct, 'model', { name: 'gpt-6' }, operator)).toEqual({
      code: 'command_model',
      params: { name: 'Alpha (renamed)', model: 'gpt-6' },
    });
    expect(calls).toEqual(['a:gpt-5', 'a:gpt-6']);
    await expect(run(unified, 'model', { name: 'x' }, operator)).rejects.toMatchObject({
      code: 'command_needs_direct_room',
    });
    await expect(setup().run(direct, 'model', { name: 'x' }, operator)).rejects.toBeInstanceOf(HalError);
  });

  it('/reset resets the room and says how many proposals it cancelled', async () => {
    const { run, resets } = setup();
    const reset = await run(direct, 'reset', {}, operator);
    expect(reset).toEqual({ code: 'command_reset_cancelled', params: { cancelled: 2 } });
    expect(noteText(reset)).toBe('New conversation: history cleared, 2 pending proposal(s) cancelled.');
    expect(resets).toEqual(['d']);
  });
});
