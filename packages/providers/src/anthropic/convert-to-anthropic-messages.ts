import type { Prompt } from '@hal-ai/spec';
import { joinSystem, toolOutputText } from '../shared/model-helpers.js';

/** An Anthropic content block HAL sends. */
export type AnthropicContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean };

/** An Anthropic message as HAL sends it. */
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicContentBlock[];
}

/**
 * Converts a HAL prompt to Anthropic's shape: system messages become the top-level `system`, tool results become
 * `tool_result` blocks of a user turn, and consecutive turns of one role are merged (the API wants alternation).
 */
export function convertToAnthropicMessages(prompt: Prompt): {
  system?: string;
  messages: AnthropicMessage[];
} {
  const system: string[] = [];
  const messages: AnthropicMessage[] = [];
  const push = (role: AnthropicMessage['role'], content: AnthropicContentBlock[]) => {
    if (content.length === 0) return;
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...content);
    else messages.push({ role, content });
  };
  for (const message of prompt) {
    switch (message.role) {
      case 'system':
        system.push(message.content);
        break;
      case 'user':
        push(
          'user',
          message.content.map((part) => ({ type: 'text', text: part.text })),
        );
        break;
      case 'assistant':
        push(
          'assistant',
          message.content
            .filter((part) => part.type !== 'text' || part.text.length > 0)
            .map((part) =>
              part.type === 'text'
                ? { type: 'text', text: part.text }
                : { type: 'tool_use', id: part.toolCallId, name: part.toolName, input: part.input ?? {} },
            ),
        );
        break;
      case 'tool':
        push(
          'user',
          message.content.map((part) => ({
            type: 'tool_result',
            tool_use_id: part.toolCallId,
            content: toolOutputText(part.output),
            ...(part.isError ? { is_error: true } : {}),
          })),
        );
        break;
    }
  }
  const systemText = joinSystem(system);
  return { ...(systemText ? { system: systemText } : {}), messages };
}
