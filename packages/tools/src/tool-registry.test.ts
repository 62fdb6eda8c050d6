import { HalError, TOOL_PRESETS, type ToolPreset } from '@hal-ai/spec';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { defineTool, type Tool } from './tool-definition.js';
import { createToolRegistry, type ToolSelection } from './tool-registry.js';

const noArgs = v.object({});
const make = (name: string, risk: 'read' | 'write' | 'high'): Tool =>
  defineTool({
    name,
    description: `${name} (${risk})`,
    risk,
    args: noArgs,
    ...(risk === 'high' ? { identifiers: () => [name] } : {}),
    execute: () => name,
  });

const tools = [
  make('hal_health', 'read'),
  make('hal_server_create', 'write'),
  make('hal_server_delete', 'high'),
  make('hal_servers_list', 'read'),
  make('hal_incident_open', 'write'),
  make('hal_config_set', 'high'),
];

describe('createToolRegistry', () => {
  it('refuses a duplicate name', () => {
    const registry = createToolRegistry(tools);
    let caught: unknown;
    try {
      registry.register(make('hal_health', 'write'));
    } catch (error) {
      caught = error;
    }
    expect(HalError.isInstance(caught) && caught.code).toBe('conflict');
    expect(registry.get('hal_health')?.risk).toBe('read');
    expect(() => createToolRegistry([make('twice', 'read'), make('twice', 'read')])).toThrow(
      /already registered/,
    );
  });

  it('refuses a hand-made tool with an unknown tier or a high tool without identifiers', () => {
    const registry = createToolRegistry();
    const forged = { ...make('forged', 'read'), risk: 'admin' } as unknown as Tool;
    expect(() => registry.register(forged)).toThrow(/risk/);
    const { identifiers: _dropped, ...noIdentifiers } = make('forged_high', 'high');
    expect(() => registry.register(noIdentifiers as Tool)).toThrow(/identifiers/);
  });

  it('gets, lists in registration order, and chains register', () => {
    const registry = createToolRegistry()
      .register(tools[0] as Tool)
      .register(tools[1] as Tool);
    expect(registry.has('hal_health')).toBe(true);
    expect(registry.has('toString')).toBe(false);
    expect(registry.get('constructor')).toBeUndefined();
    expect(registry.list().map((tool) => tool.name)).toEqual(['hal_health', 'hal_server_create']);
    registry.list().pop();
    expect(registry.list()).toHaveLength(2);
  });

  const expected: Record<ToolPreset, string[]> = {
    all: [
      'hal_health',
      'hal_server_create',
      'hal_server_delete',
      'hal_servers_list',
      'hal_incident_open',
      'hal_config_set',
    ],
    read_write: ['hal_health', 'hal_server_create', 'hal_servers_list', 'hal_incident_open'],
    read_only: ['hal_health', 'hal_servers_list'],
    none: [],
    custom: ['hal_server_delete', 'hal_servers_list'],
  };

  it('covers every preset of the spec in the table below', () => {
    expect(Object.keys(expected).sort()).toEqual([...TOOL_PRESETS].sort());
  });

  it.each(TOOL_PRESETS.map((preset) => [preset, expected[preset]] as const))(
    'preset %s selects %j',
    (preset, names) => {
      const registry = createToolRegistry(tools);
      // `enabled` matters for custom only; unknown names in it are ignored.
      const selection: ToolSelection = {
        preset,
        enabled: ['hal_servers_list', 'hal_server_delete', 'no_such_tool'],
      };
      expect(registry.select(selection).map((tool) => tool.name)).toEqual(names);
      for (const tool of tools)
        expect(registry.isEnabled(tool.name, selection)).toBe(names.includes(tool.name));
      expect(registry.declarations(selection).map((declaration) => declaration.name)).toEqual(names);
    },
  );

  it('enables nothing for custom without a list, an unknown preset, or an unknown tool', () => {
    const registry = createToolRegistry(tools);
    expect(registry.select({ preset: 'custom' })).toEqual([]);
    expect(registry.select({ preset: 'everything' as ToolPreset })).toEqual([]);
    expect(registry.isEnabled('no_such_tool', { preset: 'all' })).toBe(false);
  });

  it('declares name, description, schema and tier; all tools without a selection; frozen, never the registry', () => {
    const registry = createToolRegistry(tools);
    const declarations = registry.declarations();
    expect(declarations).toHaveLength(tools.length);
    expect(declarations[2]).toEqual({
      name: 'hal_server_delete',
      description: 'hal_server_delete (high)',
      inputSchema: { type: 'object', properties: {}, required: [], additionalProperties: false },
      risk: 'high',
    });
    expect(() => {
      (declarations[2] as { risk: string }).risk = 'read';
    }).toThrow(TypeError);
    expect(() => {
      (declarations[2]?.inputSchema as Record<string, unknown>).additionalProperties = true;
    }).toThrow(TypeError);
    expect(() => declarations.push(declarations[0]!)).toThrow(TypeError);
    expect(registry.get('hal_server_delete')?.risk).toBe('high');
    expect(registry.declarations()[2]?.inputSchema.additionalProperties).toBe(false);
  });

  it('builds the declarations once per selection, until the next register', () => {
    const registry = createToolRegistry(tools.slice(0, 2));
    const all = registry.declarations();
    expect(registry.declarations({ preset: 'all' })).toBe(all);
    const readOnly = registry.declarations({ preset: 'read_only' });
    expect(readOnly).not.toBe(all);
    expect(registry.declarations({ preset: 'read_only' })).toBe(readOnly);
    const custom = registry.declarations({ preset: 'custom', enabled: [tools[1]!.name, tools[0]!.name] });
    expect(registry.declarations({ preset: 'custom', enabled: [tools[0]!.name, tools[1]!.name] })).toBe(
      custom,
    );
    expect(registry.declarations({ preset: 'custom', enabled: [tools[0]!.name] })).toHaveLength(1);
    registry.register(tools[2]!);
    const after = registry.declarations();
    expect(after).not.toBe(all);
    expect(after.map((declaration) => declaration.name)).toEqual(tools.slice(0, 3).map((tool) => tool.name));
  });
});
