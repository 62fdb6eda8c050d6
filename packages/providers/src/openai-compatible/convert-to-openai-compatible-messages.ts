import type { Prompt } from '@hal-ai/spec';
import { toolOutputText } from '../shared/model-helpers.js';

/** A Chat Completions message as HAL sends it. */
export type OpenAICompatibleMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/**
 * Converts a HAL prompt to Chat Completions messages: tool calls carry JSON-string arguments and each tool result
 * becomes its own `tool` message.
 */
export function convertToOpenAICompatibleMessages(prompt: Prompt): OpenAICompatibleMessage[] {
  const messages: OpenAICompatibleMessage[] = [];
  for (const message of prompt) {
    switch (message.role) {
      case 'system':
        messages.push({ role: 'system', content: message.content });
        break;
      case 'user':
        messages.push({ role: 'user', content: message.content.map((part) => part.text).join('\n') });
        break;
      case 'assistant': {
        const text = message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
        const calls = message.content.flatMap((part) =>
          part.type === 'tool-call'
            ? [
                {
                  id: part.toolCallId,
                  type: 'function' as const,
                  function: { name: part.toolName, arguments: JSON.stringify(part.input ?? {}) },
                },
              ]
            : [],
        );
        messages.push({
          role: 'assistant',
          content: text.length > 0 ? text : null,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        });
        break;
      }
      case 'tool':
        for (const part of message.content) {
          messages.push({
            role: 'tool',
            tool_call_id: part.toolCallId,
            content: toolOutputText(part.output),
          });
        }
        break;
    }
  }
  return messages;
}
