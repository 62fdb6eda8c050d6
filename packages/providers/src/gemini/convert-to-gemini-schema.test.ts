import { describe, expect, it } from 'vitest';
import { convertToGeminiSchema } from './convert-to-gemini-schema.js';

describe('convertToGeminiSchema', () => {
  it('strips keywords Gemini rejects and keeps the ones it accepts', () => {
    const input = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      description: 'Search',
      properties: {
        query: { type: 'string', minLength: 1, default: '', examples: ['hal'] },
        limit: { type: 'integer', minimum: 1, maximum: 50, exclusiveMinimum: 0 },
        tags: { type: 'array', items: { type: 'string', format: 'uri', pattern: '^a' }, uniqueItems: true },
        since: { type: 'string', format: 'date-time' },
      },
      required: ['query'],
    };
    const copy = structuredClone(input);
    expect(convertToGeminiSchema(input)).toEqual({
      type: 'object',
      description: 'Search',
      properties: {
        query: { type: 'string', minLength: 1 },
        limit: { type: 'integer', minimum: 1, maximum: 50 },
        tags: { type: 'array', items: { type: 'string', pattern: '^a' } },
        since: { type: 'string', format: 'date-time' },
      },
      required: ['query'],
    });
    expect(input).toEqual(copy);
  });

  it('turns const into enum, oneOf into anyOf and null types into nullable', () => {
    expect(convertToGeminiSchema({ const: 'fixed' })).toEqual({ type: 'string', enum: ['fixed'] });
    expect(convertToGeminiSchema({ type: ['string', 'null'] })).toEqual({ type: 'string', nullable: true });
    expect(convertToGeminiSchema({ anyOf: [{ type: 'number' }, { type: 'null' }] })).toEqual({
      type: 'number',
      nullable: true,
    });
    expect(convertToGeminiSchema({ oneOf: [{ type: 'number' }, { type: 'string', default: 'x' }] })).toEqual({
      anyOf: [{ type: 'number' }, { type: 'string' }],
    });
    expect(convertToGeminiSchema({ type: 'string', enum: ['a', null] })).toEqual({
      type: 'string',
      enum: ['a'],
      nullable: true,
    });
  });

  it('recurses through nested objects and arrays of objects', () => {
    expect(
      convertToGeminiSchema({
        type: 'array',
        items: {
          type: 'object',
          properties: { id: { type: 'string', $comment: 'x' } },
          additionalProperties: {},
        },
      }),
    ).toEqual({ type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } });
  });

  it('inlines local refs, merges allOf, and keeps only required names that are properties', () => {
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
        pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] },
      },
      required: ['host', 'ghost'],
      additionalProperties: false,
    });
    expect(converted).toEqual({
      type: 'object',
      properties: {
        host: { type: 'string', minLength: 1 },
        // A recursive reference cannot be inlined: it becomes an unconstrained value.
        loop: { description: 'recursive' },
        both: {
          type: 'object',
          properties: { a: { type: 'string' }, b: { type: 'integer' } },
          required: ['a'],
        },
        either: { anyOf: [{ type: 'string' }, { type: 'boolean' }] },
        maybe: { type: 'integer', nullable: true },
        fixed: { type: 'string', enum: ['yes'] },
        pair: { type: 'array', items: { type: 'string' } },
      },
      required: ['host'],
    });
  });

  it('says non-string enums in words, keeping or inferring their type', () => {
    expect(convertToGeminiSchema({ enum: [1, 2, 3] })).toEqual({
      type: 'integer',
      description: 'Allowed values: 1, 2, 3.',
    });
    expect(convertToGeminiSchema({ type: 'number', enum: [0.5, 1], description: 'Ratio.' })).toEqual({
      type: 'number',
      description: 'Ratio. Allowed values: 0.5, 1.',
    });
    expect(convertToGeminiSchema({ enum: [true, null] })).toEqual({
      type: 'boolean',
      description: 'Allowed values: true.',
      nullable: true,
    });
    expect(convertToGeminiSchema({ type: 'integer', format: 'int64' })).toEqual({
      type: 'integer',
      format: 'int64',
    });
    expect(convertToGeminiSchema({ type: 'integer', format: 'date-time' })).toEqual({ type: 'integer' });
  });
});
