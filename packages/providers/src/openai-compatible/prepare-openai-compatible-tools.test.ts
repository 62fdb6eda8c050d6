import type { ToolDeclaration } from '@hal-ai/spec';
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { prepareOpenAICompatibleTools } from './prepare-openai-compatible-tools.js';

const tool: ToolDeclaration = {
  name: 'hal_server_create',
  description: 'Register a server.',
  inputSchema: {
    type: 'object',
    properties: { name: { type: 'string' }, port: { type: 'integer' } },
    required: ['name'],
    additionalProperties: false,
  },
  risk: 'write',
};

describe('prepareOpenAICompatibleTools', () => {
  it('type-checks as ChatCompletionTool[] and carries the JSON Schema unchanged (optional stays optional)', () => {
    const prepared = prepareOpenAICompatibleTools([tool], { type: 'tool', toolName: 'hal_server_create' });
    const declared: OpenAI.Chat.ChatCompletionTool[] = prepared.tools ?? [];
    const first = declared[0] as OpenAI.Chat.ChatCompletionFunctionTool;
    expect(first).toEqual({
      type: 'function',
      function: {
        name: 'hal_server_create',
        description: 'Register a server.',
        parameters: tool.inputSchema,
      },
    });
    // Not `strict`: strict mode would make `port` required.
    expect(first.function).not.toHaveProperty('strict');
    expect(JSON.stringify(declared)).not.toMatch(/"risk"/);
    const choice: OpenAI.Chat.ChatCompletionToolChoiceOption | undefined = prepared.tool_choice;
    expect(choice).toEqual({ type: 'function', function: { name: 'hal_server_create' } });
  });

  it('declares nothing without tools, and passes the named choices through', () => {
    expect(prepareOpenAICompatibleTools(undefined, 'auto')).toEqual({});
    expect(prepareOpenAICompatibleTools([tool], 'none').tool_choice).toBe('none');
  });
});
