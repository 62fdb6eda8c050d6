import type { ToolChoice, ToolDeclaration } from '@hal-ai/spec';
import { memoizeFrozen } from '../shared/memoize-frozen.js';

// A registry's frozen tool list maps to one frozen list, which the request body then encodes once.
const toAnthropicTools = memoizeFrozen((tools: ToolDeclaration[]): AnthropicTool[] =>
  tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: { ...tool.inputSchema, type: 'object' as const },
  })),
);

/** Anthropic's tool declaration. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: { type: 'object'; [key: string]: unknown };
}

/** Anthropic's tool choice. */
export type AnthropicToolChoice =
  | { type: 'auto' }
  | { type: 'any' }
  | { type: 'none' }
  | { type: 'tool'; name: string };

/** Declares HAL tools to Anthropic (`{name, description, input_schema}`); the risk tier is never sent. */
export function prepareAnthropicTools(
  tools: ToolDeclaration[] | undefined,
  toolChoice: ToolChoice | undefined,
): { tools?: AnthropicTool[]; tool_choice?: AnthropicToolChoice } {
  if (!tools || tools.length === 0) return {};
  return {
    tools: toAnthropicTools(tools),
    ...(toolChoice ? { tool_choice: mapToolChoice(toolChoice) } : {}),
  };
}

function mapToolChoice(choice: ToolChoice): AnthropicToolChoice {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'required') return { type: 'any' };
  if (choice === 'none') return { type: 'none' };
  return { type: 'tool', name: choice.toolName };
}
