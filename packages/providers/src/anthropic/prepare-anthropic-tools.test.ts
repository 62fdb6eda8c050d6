import type Anthropic from '@anthropic-ai/sdk';
import type { ToolDeclaration } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import { prepareAnthropicTools } from './prepare-anthropic-tools.js';

const tools: ToolDeclaration[] = [
  {
    name: 'hal_server_delete',
    description: 'Delete a server.',
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
      additionalProperties: false,
    },
    risk: 'high',
  },
  { name: 'hal_health', description: 'Health.', inputSchema: { properties: {} }, risk: 'read' },
];

describe('prepareAnthropicTools', () => {
  it('type-checks as Anthropic.Tool[] with an object input_schema, and never sends the tier', () => {
    const prepared = prepareAnthropicTools(tools, 'required');
    const declared: Anthropic.Tool[] = prepared.tools ?? [];
    expect(declared).toEqual([
      {
        name: 'hal_server_delete',
        description: 'Delete a server.',
        input_schema: {
          type: 'object',
          properties: { id: { type: 'string' } },
          required: ['id'],
          additionalProperties: false,
        },
      },
      // A schema without `type` still declares an object, as Anthropic requires.
      { name: 'hal_health', description: 'Health.', input_schema: { type: 'object', properties: {} } },
    ]);
    expect(JSON.stringify(declared)).not.toMatch(/"risk"/);
    const choice: Anthropic.ToolChoice | undefined = prepared.tool_choice;
    expect(choice).toEqual({ type: 'any' });
  });

  it('declares nothing without tools, and names a forced tool', () => {
    expect(prepareAnthropicTools([], 'auto')).toEqual({});
    expect(prepareAnthropicTools(tools, { type: 'tool', toolName: 'hal_health' }).tool_choice).toEqual({
      type: 'tool',
      name: 'hal_health',
    });
  });
});
