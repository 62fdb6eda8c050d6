import { HalError } from '@hal-ai/spec';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { defineTool, type ToolDefinition } from './tool-definition.js';
import { toJsonSchema } from './tool-json-schema.js';

const args = v.object({ id: v.pipe(v.string(), v.minLength(1)) });
const base = {
  name: 'hal_server_get',
  description: 'One server.',
  risk: 'read',
  args,
  execute: () => 'ok',
} satisfies ToolDefinition<typeof args, unknown, string>;

function refusal(definition: unknown): HalError {
  try {
    defineTool(definition as ToolDefinition<typeof args, unknown, unknown>);
  } catch (error) {
    if (HalError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('defineTool accepted the definition');
}

describe('defineTool', () => {
  it('lets a write tool choose per call to run at once, and refuses that choice on read and high tools', async () => {
    const tool = defineTool({
      ...base,
      name: 'web_fetch',
      risk: 'write',
      runsAtOnce: (_context: unknown, { id }) => id === 'allowed',
    });
    expect(await tool.runsAtOnce?.(undefined, { id: 'allowed' })).toBe(true);
    expect(await tool.runsAtOnce?.(undefined, { id: 'other' })).toBe(false);
    expect(defineTool({ ...base, risk: 'write' }).runsAtOnce).toBeUndefined();
    for (const risk of ['read', 'high'] as const) {
      const error = refusal({ ...base, risk, identifiers: () => [], runsAtOnce: () => true });
      expect(error.message).toMatch(/only a write tool/);
    }
  });

  it('refuses a high tool without identifiers', () => {
    const error = refusal({ ...base, name: 'hal_server_delete', risk: 'high' });
    expect(error.code).toBe('validation_failed');
    expect(error.message).toMatch(/identifiers/);
  });

  it('accepts a high tool with identifiers and exposes them', () => {
    const tool = defineTool({
      ...base,
      name: 'hal_server_delete',
      risk: 'high',
      identifiers: ({ id }) => [id],
    });
    expect(tool.identifiers?.({ id: 'srv-1' })).toEqual(['srv-1']);
  });

  it.each([
    ['empty', ''],
    ['upper case', 'Hal_server'],
    ['leading digit', '1tool'],
    ['leading underscore', '_tool'],
    ['hyphen', 'hal-server'],
    ['dot', 'hal.server'],
    ['space', 'hal server'],
    ['65 characters', `a${'b'.repeat(64)}`],
    ['not a string', 42],
  ])('refuses a bad name (%s)', (_label, name) => {
    expect(refusal({ ...base, name }).code).toBe('validation_failed');
  });

  it('accepts a 64-character name', () => {
    expect(defineTool({ ...base, name: `a${'b'.repeat(63)}` }).name).toHaveLength(64);
  });

  it.each([
    ['an empty description', { description: '  ' }],
    ['an unknown risk', { risk: 'admin' }],
    ['args that are not an object schema', { args: v.string() }],
    ['args that are a plain object', { args: { id: 'string' } }],
    ['a missing execute', { execute: undefined }],
    ['identifiers that are not a function', { identifiers: ['id'] }],
    ['an async schema', { args: v.objectAsync({ id: v.string() }) }],
    ['a forbidden entry name', { args: v.object({ constructor: v.string() }) }],
    ['a type JSON cannot carry', { args: v.object({ at: v.date() }) }],
  ])('refuses %s', (_label, patch) => {
    expect(refusal({ ...base, ...patch }).code).toBe('validation_failed');
  });

  it('freezes the tool so its tier cannot be changed afterwards', () => {
    const tool = defineTool(base);
    expect(() => {
      (tool as { risk: string }).risk = 'high';
    }).toThrow(TypeError);
    expect(tool.risk).toBe('read');
    expect(() => {
      (tool.inputSchema as Record<string, unknown>).additionalProperties = true;
    }).toThrow(TypeError);
  });

  it('derives a strict JSON Schema without $schema for providers, and a full document from toJsonSchema', () => {
    const tool = defineTool({
      ...base,
      args: v.object({
        name: v.pipe(v.string(), v.minLength(2), v.maxLength(40), v.description('Server name')),
        role: v.optional(v.picklist(['web', 'db'])),
        limits: v.object({ cpu: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(64)) }),
        // A cross-field check JSON Schema cannot express is left to validation.
        tags: v.pipe(
          v.array(v.string()),
          v.check((list) => new Set(list).size === list.length, 'no duplicates'),
        ),
      }),
    });
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 2, maxLength: 40, description: 'Server name' },
        role: { type: 'string', enum: ['web', 'db'] },
        limits: {
          type: 'object',
          properties: { cpu: { type: 'integer', minimum: 1, maximum: 64 } },
          required: ['cpu'],
          additionalProperties: false,
        },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['name', 'limits', 'tags'],
      additionalProperties: false,
    });
    expect(toJsonSchema(tool)).toEqual({
      $schema: 'http://json-schema.org/draft-07/schema#',
      ...tool.inputSchema,
    });
  });

  it('passes context and validated arguments through execute and impact', async () => {
    const tool = defineTool({
      name: 'hal_server_isolate',
      description: 'Isolate a server.',
      risk: 'high',
      args: v.object({ id: v.string() }),
      identifiers: ({ id }) => [id],
      impact: (context: { prefix: string }, { id }) => `${context.prefix} ${id}`,
      execute: (context: { prefix: string }, { id }) => ({ isolated: `${context.prefix}:${id}` }),
    });
    await expect(tool.impact?.({ prefix: 'isolates' }, { id: 'srv-1' })).resolves.toBe('isolates srv-1');
    await expect(tool.execute({ prefix: 'p' }, { id: 'srv-2' })).resolves.toEqual({ isolated: 'p:srv-2' });
  });
});
