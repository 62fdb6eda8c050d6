import type { ToolDeclaration } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import { GEMINI_SCHEMA_KEYWORDS } from './convert-to-gemini-schema.js';
import { prepareGeminiTools } from './prepare-gemini-tools.js';

// What `@hal-ai/tools` declares for a valibot schema with most shapes HAL's tools use (recorded from
// `defineTool(...).inputSchema`: picklists, a nullable, a literal union, a nested array, formats, a union).
const rich: ToolDeclaration = {
  name: 'hal_server_create',
  description: 'Register a server.',
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 2, maxLength: 40, description: 'Unique server name' },
      role: { enum: ['web', 'db'], type: 'string' },
      email: { type: 'string', format: 'email' },
      port: { type: 'integer', exclusiveMinimum: 0, maximum: 65535 },
      weight: { enum: [1, 2, 3], type: 'number' },
      owner: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      mode: { anyOf: [{ const: 'fast' }, { const: 'safe' }] },
      tags: {
        type: 'array',
        items: {
          type: 'object',
          properties: { key: { type: 'string' }, value: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
          required: ['key'],
          additionalProperties: false,
        },
        maxItems: 10,
      },
      at: { type: 'string', format: 'date-time' },
      id: { anyOf: [{ type: 'string' }, { type: 'number' }] },
    },
    required: ['name', 'role', 'owner'],
    additionalProperties: false,
  },
};
const health: ToolDeclaration = {
  name: 'hal_health',
  description: 'Health.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
};

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

describe('prepareGeminiTools', () => {
  it('declares one tools entry whose schemas use only what Gemini accepts', () => {
    const declared = prepareGeminiTools([rich, health], undefined).tools ?? [];
    expect(declared).toHaveLength(1);
    const functions = declared[0]?.functionDeclarations ?? [];
    expect(functions.map((declaration) => declaration.name)).toEqual(['hal_server_create', 'hal_health']);
    // A tool without arguments has no parameters (Gemini refuses an empty object).
    expect(functions[1]).toEqual({ name: 'hal_health', description: 'Health.' });
    const seen = new Set<string>();
    for (const declaration of functions) {
      walk(declaration.parameters, (schema, path) => {
        for (const key of Object.keys(schema)) {
          expect(GEMINI_SCHEMA_KEYWORDS.has(key), `${path}: ${key}`).toBe(true);
          seen.add(key);
        }
        if (schema.type !== undefined) {
          expect(['string', 'number', 'integer', 'boolean', 'array', 'object']).toContain(schema.type);
        }
        if (schema.enum !== undefined) {
          expect(
            (schema.enum as unknown[]).every((item) => typeof item === 'string'),
            path,
          ).toBe(true);
        }
      });
    }
    // The walk saw real content, not an empty shell.
    expect([...seen]).toEqual(
      expect.arrayContaining(['type', 'properties', 'required', 'enum', 'nullable', 'items', 'anyOf']),
    );
  });

  it('converts each shape HAL’s tools declare', () => {
    const parameters = prepareGeminiTools([rich], undefined).tools?.[0]?.functionDeclarations[0]
      ?.parameters as Record<string, Record<string, Record<string, unknown>>>;
    expect(parameters.required).toEqual(['name', 'role', 'owner']);
    expect(parameters).not.toHaveProperty('additionalProperties');
    const properties = parameters.properties ?? {};
    expect(properties.name).toEqual({
      type: 'string',
      minLength: 2,
      maxLength: 40,
      description: 'Unique server name',
    });
    expect(properties.role).toEqual({ type: 'string', enum: ['web', 'db'] });
    expect(properties.owner).toEqual({ type: 'string', nullable: true });
    expect(properties.mode).toEqual({ type: 'string', enum: ['fast', 'safe'] });
    // Formats Gemini does not know are dropped; `date-time` stays.
    expect(properties.email).toEqual({ type: 'string' });
    expect(properties.at).toEqual({ type: 'string', format: 'date-time' });
    expect(properties.port).toEqual({ type: 'integer', maximum: 65535 });
    // Gemini's enums are strings: a number picklist keeps its type and says its values in words.
    expect(properties.weight).toEqual({ type: 'number', description: 'Allowed values: 1, 2, 3.' });
    expect(properties.id).toEqual({ anyOf: [{ type: 'string' }, { type: 'number' }] });
    expect(properties.tags).toEqual({
      type: 'array',
      maxItems: 10,
      items: {
        type: 'object',
        properties: { key: { type: 'string' }, value: { type: 'string', nullable: true } },
        required: ['key'],
      },
    });
  });

  it('declares nothing without tools, and maps the tool choice', () => {
    expect(prepareGeminiTools([], 'auto')).toEqual({});
    expect(prepareGeminiTools([health], 'required').toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY' },
    });
    expect(prepareGeminiTools([health], { type: 'tool', toolName: 'hal_health' }).toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['hal_health'] },
    });
  });
});
