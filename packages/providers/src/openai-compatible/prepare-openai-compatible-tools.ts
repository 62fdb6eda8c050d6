import type { ToolChoice, ToolDeclaration } from '@hal-ai/spec';
import { memoizeFrozen } from '../shared/memoize-frozen.js';

// A registry's frozen tool list maps to one frozen list, which the request body then encodes once.
const toFunctionTools = memoizeFrozen((tools: ToolDeclaration[]): OpenAICompatibleTool[] =>
  tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  })),
);

/** A Chat Completions function tool. */
export interface OpenAICompatibleTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The Chat Completions tool choice. */
export type OpenAICompatibleToolChoice =
  | 'auto'
  | 'none'
  | 'required'
  | { type: 'function'; function: { name: string } };

/** Declares HAL tools as `{type: 'function', function: {name, description, parameters}}`. */
export function prepareOpenAICompatibleTools(
  tools: ToolDeclaration[] | undefined,
  toolChoice: ToolChoice | undefined,
): { tools?: OpenAICompatibleTool[]; tool_choice?: OpenAICompatibleToolChoice } {
  if (!tools || tools.length === 0) return {};
  return {
    tools: toFunctionTools(tools),
    ...(toolChoice
      ? {
          tool_choice:
            typeof toolChoice === 'string'
              ? toolChoice
              : { type: 'function', function: { name: toolChoice.toolName } },
        }
      : {}),
  };
}
