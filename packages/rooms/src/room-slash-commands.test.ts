import { describe, expect, it } from 'vitest';
import { expandSlashCommand, parseSlashCommand, SLASH_COMMANDS } from './room-slash-commands.js';

describe('parseSlashCommand', () => {
  it.each([
    ['/help', { command: 'help', args: [], rawArgs: '' }],
    ['  /Deploy web 1.2.0  ', { command: 'deploy', args: ['web', '1.2.0'], rawArgs: 'web 1.2.0' }],
    [
      '/isolate "db 1" disk failing',
      { command: 'isolate', args: ['db 1', 'disk', 'failing'], rawArgs: '"db 1" disk failing' },
    ],
  ])('%j', (text, expected) => {
    expect(parseSlashCommand(text)).toEqual(expected);
  });

  it.each(['hello', '/etc/hosts is broken', '/ status', '', 'a /status'])('%j is not a command', (text) => {
    expect(parseSlashCommand(text)).toBeUndefined();
  });
});

describe('expandSlashCommand', () => {
  const expand = (text: string, roomKind: 'unified' | 'direct' = 'unified') => {
    const parsed = parseSlashCommand(text);
    if (!parsed) throw new Error('not a command');
    return expandSlashCommand(parsed, { roomKind });
  };

  it('expands prompt commands with their arguments and the unchanged approval rule', () => {
    const expanded = expand('/deploy web 1.2.0 edge-1');
    expect(expanded.definition.kind).toBe('prompt');
    expect(expanded.values).toEqual({ module: 'web', version: '1.2.0', server: 'edge-1' });
    expect(expanded.expansion).toContain('hal_module_deploy');
    expect(expanded.expansion).toContain('"edge-1"');
    expect(expanded.expansion).toContain('only after the operator approves');
  });

  it('gives rest arguments the remaining text', () => {
    expect(expand('/isolate db-1 disk is failing now').values).toEqual({
      server: 'db-1',
      reason: 'disk is failing now',
    });
    expect(expand('/order restart the "mail" queue').values.text).toBe('restart the "mail" queue');
    expect(expand('/servers').values).toEqual({});
  });

  it('returns local commands without an expansion', () => {
    expect(expand('/help').expansion).toBeUndefined();
    expect(expand('/model gpt-5', 'direct').values).toEqual({ name: 'gpt-5' });
  });

  it.each([
    ['/nope', 'unknown_command'],
    ['/deploy web', 'command_args_required'],
    ['/isolate db-1', 'command_args_required'],
    ['/order', 'command_args_required'],
    ['/model', 'command_needs_direct_room'],
    ['/model gpt-5', 'command_needs_direct_room'],
  ])('%j → %s', (text, code) => {
    expect(() => expand(text)).toThrow(expect.objectContaining({ code }));
  });

  it('requires the model name in a direct room', () => {
    expect(() => expand('/model', 'direct')).toThrow(
      expect.objectContaining({ code: 'command_args_required' }),
    );
  });

  it('lists the SPEC §7 commands with their kinds', () => {
    const local = SLASH_COMMANDS.filter((command) => command.kind === 'local').map((command) => command.name);
    expect(local).toEqual(['help', 'tools', 'model', 'reset']);
    expect(SLASH_COMMANDS.map((command) => command.name)).toEqual(
      expect.arrayContaining([
        'status',
        'servers',
        'order',
        'deploy',
        'rollback',
        'isolate',
        'incident',
        'audit',
      ]),
    );
  });
});
