import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { toMcpTools } from './tool-declarations.js';
import { defineTool } from './tool-definition.js';
import { createToolRegistry } from './tool-registry.js';

const rich = defineTool({
  name: 'hal_server_create',
  description: 'Register a server.',
  risk: 'write',
  title: 'Create server',
  idempotent: false,
  args: v.object({
    name: v.pipe(v.string(), v.minLength(2), v.maxLength(40), v.description('Unique server name')),
    role: v.picklist(['web', 'db']),
    email: v.optional(v.pipe(v.string(), v.email())),
    port: v.optional(v.pipe(v.number(), v.integer(), v.gtValue(0), v.maxValue(65535))),
    weight: v.optional(v.picklist([1, 2, 3])),
    owner: v.nullable(v.string()),
    mode: v.optional(v.union([v.literal('fast'), v.literal('safe')])),
    tags: v.optional(
      v.pipe(v.array(v.object({ key: v.string(), value: v.nullish(v.string()) })), v.maxLength(10)),
    ),
    at: v.optional(v.pipe(v.string(), v.isoTimestamp())),
    id: v.optional(v.union([v.string(), v.number()])),
  }),
  execute: () => null,
});
const read = defineTool({
  name: 'hal_health',
  description: 'Health.',
  risk: 'read',
  idempotent: true,
  openWorld: false,
  args: v.object({}),
  execute: () => null,
});
const high = defineTool({
  name: 'hal_server_delete',
  description: 'Delete a server.',
  risk: 'high',
  args: v.strictObject({ id: v.string() }),
  identifiers: ({ id }) => [id],
  execute: () => null,
});
const tools = [rich, read, high];

describe('MCP declarations', () => {
  it.each([
    [
      'read',
      read,
      { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    ],
    [
      'write',
      rich,
      { title: 'Create server', readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    ],
    ['high', high, { readOnlyHint: false, destructiveHint: true }],
  ] as const)('annotates a %s tool', (_tier, tool, annotations) => {
    const [declared] = toMcpTools([tool]);
    expect(declared?.annotations).toEqual(annotations);
    expect(declared?.inputSchema.type).toBe('object');
    expect(declared?.inputSchema).not.toHaveProperty('$schema');
  });

  it('treats a declaration without a tier as destructive, and takes the tier from the registry declarations', () => {
    const { risk: _risk, ...anonymous } = createToolRegistry(tools).declarations()[0] ?? rich;
    expect(toMcpTools([anonymous])[0]?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    const fromRegistry = toMcpTools(createToolRegistry(tools).declarations({ preset: 'read_only' }));
    expect(fromRegistry.map((tool) => [tool.name, tool.annotations.readOnlyHint])).toEqual([
      ['hal_health', true],
    ]);
  });

  it('hands out copies: editing a declaration never edits the tool', () => {
    const [declared] = toMcpTools([high]);
    (declared?.inputSchema as Record<string, unknown>).additionalProperties = true;
    expect(high.inputSchema.additionalProperties).toBe(false);
    expect(toMcpTools([high])[0]?.inputSchema.additionalProperties).toBe(false);
  });
});
