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
});
