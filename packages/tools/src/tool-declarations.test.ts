import type Anthropic from '@anthropic-ai/sdk';
import { type Tool as GeminiTool, Type } from '@google/genai';
import type OpenAI from 'openai';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { convertToGeminiSchema, GEMINI_SCHEMA_KEYWORDS } from './gemini-schema.js';
import { toAnthropicTools, toGeminiTools, toMcpTools, toOpenAITools } from './tool-declarations.js';
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

function walk(
  node: unknown,
  visit: (schema: Record<string, unknown>, path: string) => void,
  path = '$',
): void {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
  const schema = node as Record<string, unknown>;
  visit(schema, path);
  for (const [key, value] of Object.entries(schema.properties ?? {})) walk(value, visit, `${path}.${key}`);
  walk(schema.items, visit, `${path}[]`);
  if (Array.isArray(schema.anyOf)) {
    for (const [index, option] of schema.anyOf.entries()) walk(option, visit, `${path}|${index}`);
  }
}

describe('provider declarations', () => {
  it('OpenAI: type-checks as ChatCompletionTool[] and carries the strict JSON Schema without $schema', () => {
    const declared: OpenAI.Chat.ChatCompletionTool[] = toOpenAITools(tools);
    const first = declared[0] as OpenAI.Chat.ChatCompletionFunctionTool;
    expect(first.type).toBe('function');
    expect(first.function.name).toBe('hal_server_create');
    expect(first.function.description).toBe('Register a server.');
    expect(first.function.parameters).toEqual(rich.inputSchema);
    expect(first.function.parameters).not.toHaveProperty('$schema');
    expect(first.function.parameters?.additionalProperties).toBe(false);
    expect(first.function.parameters?.required).toEqual(['name', 'role', 'owner']);
  });

  it('Anthropic: type-checks as Anthropic.Tool[] with an object input_schema', () => {
    const declared: Anthropic.Tool[] = toAnthropicTools(tools);
    expect(declared.map((tool) => tool.name)).toEqual([
      'hal_server_create',
      'hal_health',
      'hal_server_delete',
    ]);
    expect(declared[2]?.input_schema).toEqual({
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
      additionalProperties: false,
    });
    // Declarations never expose the tier as something a provider could send back.
    expect(JSON.stringify(declared)).not.toMatch(/"risk"/);
  });

  it('Gemini: type-checks as @google/genai Tool[] and uses only supported keywords', () => {
    const declared: GeminiTool[] = toGeminiTools(tools);
    expect(declared).toHaveLength(1);
    const functions = declared[0]?.functionDeclarations ?? [];
    expect(functions.map((declaration) => declaration.name)).toEqual([
      'hal_server_create',
      'hal_health',
      'hal_server_delete',
    ]);
    // A tool without arguments has no parameters (Gemini refuses an empty OBJECT).
    expect(functions[1]).toEqual({ name: 'hal_health', description: 'Health.' });
    const seen = new Set<string>();
    const types = new Set<string>(Object.values(Type));
    for (const declaration of functions) {
      walk(declaration.parameters, (schema, path) => {
        for (const key of Object.keys(schema)) {
          expect(GEMINI_SCHEMA_KEYWORDS.has(key), `${path}: ${key}`).toBe(true);
          seen.add(key);
        }
        if (schema.type !== undefined)
          expect(types.has(schema.type as string), `${path}: ${String(schema.type)}`).toBe(true);
        if (schema.enum !== undefined)
          expect((schema.enum as unknown[]).every((item) => typeof item === 'string')).toBe(true);
      });
    }
    // The walk saw real content, not an empty shell.
    expect([...seen]).toEqual(
      expect.arrayContaining(['type', 'properties', 'required', 'enum', 'nullable', 'items', 'anyOf']),
    );
    const parameters = functions[0]?.parameters as Record<string, Record<string, Record<string, unknown>>>;
    expect(parameters.properties?.name).toEqual({
      type: 'STRING',
      minLength: 2,
      maxLength: 40,
      description: 'Unique server name',
    });
    expect(parameters.properties?.role).toEqual({ type: 'STRING', enum: ['web', 'db'] });
    expect(parameters.properties?.owner).toEqual({ type: 'STRING', nullable: true });
    expect(parameters.properties?.mode).toEqual({ type: 'STRING', enum: ['fast', 'safe'] });
    expect(parameters.properties?.email).toEqual({ type: 'STRING' });
    expect(parameters.properties?.at).toEqual({ type: 'STRING', format: 'date-time' });
    expect(parameters.properties?.port).toEqual({ type: 'INTEGER', maximum: 65535 });
    expect(parameters.properties?.weight).toEqual({
      type: 'NUMBER',
      description: 'Allowed values: 1, 2, 3.',
    });
    expect(parameters.properties?.id).toEqual({ anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }] });
  });

  it('Gemini: no tools → no tools entry', () => {
    expect(toGeminiTools([])).toEqual([]);
  });

  it('convertToGeminiSchema inlines local refs, merges allOf, and turns oneOf/type arrays into anyOf/nullable', () => {
    const converted = convertToGeminiSchema({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      $defs: { host: { type: 'string', format: 'hostname', minLength: 1 }, node: { $ref: '#/$defs/node' } },
      properties: {
        host: { $ref: '#/$defs/host' },
        loop: { $ref: '#/$defs/node', description: 'recursive' },
        both: {
          allOf: [
            { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
            { properties: { b: { type: 'integer' } } },
          ],
        },
        either: { oneOf: [{ type: 'string' }, { type: 'boolean' }] },
        maybe: { type: ['integer', 'null'], exclusiveMinimum: 0 },
        fixed: { const: 'yes' },
      },
      required: ['host', 'ghost'],
      additionalProperties: false,
    });
    expect(converted).toEqual({
      type: 'OBJECT',
      properties: {
        host: { type: 'STRING', minLength: 1 },
        loop: { description: 'recursive' },
        both: {
          type: 'OBJECT',
          properties: { a: { type: 'STRING' }, b: { type: 'INTEGER' } },
          required: ['a'],
        },
        either: { anyOf: [{ type: 'STRING' }, { type: 'BOOLEAN' }] },
        maybe: { type: 'INTEGER', nullable: true },
        fixed: { type: 'STRING', enum: ['yes'] },
      },
      required: ['host'],
    });
  });
});

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
    expect(toAnthropicTools([high])[0]?.input_schema.additionalProperties).toBe(false);
  });
});
