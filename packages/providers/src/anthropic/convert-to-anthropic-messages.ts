import type { AssistantContentPart, Prompt } from '@hal-ai/spec';
import { convertToAlternatingTurns, withoutEmptyText } from '../shared/convert-to-alternating-turns.js';
import { toolOutputText } from '../shared/model-helpers.js';

/** An Anthropic content block HAL sends. */
export type AnthropicContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean };

/** An Anthropic message as HAL sends it. */
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicContentBlock[];
}

/** The `providerMetadata` key Anthropic's opaque data (thinking signatures, redacted thinking) is kept under. */
export const ANTHROPIC_METADATA_KEY = 'anthropic';

/**
 * An assistant part as Anthropic blocks. Reasoning goes back exactly as Claude wrote it (a thinking block with its
 * signature, or the redacted data); reasoning that is not Claude's (no signature) is left out.
 */
function assistantBlocks(part: AssistantContentPart): AnthropicContentBlock[] {
  switch (part.type) {
    case 'text':
      return [{ type: 'text', text: part.text }];
    case 'tool-call':
      return [{ type: 'tool_use', id: part.toolCallId, name: part.toolName, input: part.input ?? {} }];
    case 'reasoning': {
      const metadata = part.providerMetadata?.[ANTHROPIC_METADATA_KEY];
      if (typeof metadata?.redactedData === 'string') {
        return [{ type: 'redacted_thinking', data: metadata.redactedData }];
      }
      if (typeof metadata?.signature === 'string') {
        return [{ type: 'thinking', thinking: part.text, signature: metadata.signature }];
      }
      return [];
    }
  }
}

/**
 * Converts a HAL prompt to Anthropic's shape: system messages become the top-level `system`, tool results become
 * `tool_result` blocks of a user turn, and consecutive turns of one role are merged (the API wants alternation).
 */
export function convertToAnthropicMessages(prompt: Prompt): {
  system?: string;
  messages: AnthropicMessage[];
} {
  const { system, turns } = convertToAlternatingTurns<AnthropicMessage['role'], AnthropicContentBlock>(
    prompt,
    (message) => {
      switch (message.role) {
        case 'user':
          return { role: 'user', parts: message.content.map((part) => ({ type: 'text', text: part.text })) };
        case 'assistant':
          return {
            role: 'assistant',
            parts: withoutEmptyText(message.content).flatMap(assistantBlocks),
          };
        case 'tool':
          return {
            role: 'user',
            parts: message.content.map((part) => ({
              type: 'tool_result',
              tool_use_id: part.toolCallId,
              content: toolOutputText(part.output),
              ...(part.isError ? { is_error: true } : {}),
            })),
          };
      }
    },
  );
  return {
    ...(system ? { system } : {}),
    messages: turns.map(({ role, parts }) => ({ role, content: parts })),
  };
}
