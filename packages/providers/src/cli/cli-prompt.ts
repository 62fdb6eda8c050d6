import type { Prompt } from '@hal-ai/spec';

/** A prompt flattened for a CLI that takes one text: the system part and the conversation part. */
export interface FlattenedCliPrompt {
  /** All system messages joined by blank lines (empty when there is none). */
  system: string;
  /** The conversation as one text; a lone user message is passed as is. */
  conversation: string;
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/**
 * Flattens a provider-neutral prompt for `claude -p` / `codex exec`, which take a single prompt text
 * and keep no history of their own (HAL runs them ephemerally). Earlier turns become a labelled
 * transcript so the model sees who said what; tool calls and results are rendered as text because
 * the CLIs cannot replay another runtime's tool-call ids.
 */
export function flattenPromptForCli(prompt: Prompt): FlattenedCliPrompt {
  const system: string[] = [];
  const turns: string[] = [];
  const conversation = prompt.filter((message) => message.role !== 'system');
  for (const message of prompt) {
    if (message.role === 'system') {
      if (message.content.trim()) system.push(message.content);
      continue;
    }
    if (message.role === 'user') {
      turns.push(`User: ${message.content.map((part) => part.text).join('')}`);
    } else if (message.role === 'assistant') {
      // Reasoning belongs to the provider that wrote it; a CLI gets the answer and the calls.
      const pieces = message.content.flatMap((part) =>
        part.type === 'text'
          ? [part.text]
          : part.type === 'tool-call'
            ? [`[called tool ${part.toolName} with ${stringify(part.input)}]`]
            : [],
      );
      turns.push(`Assistant: ${pieces.join('\n')}`);
    } else {
      for (const part of message.content) {
        turns.push(
          `Tool result (${part.toolName}${part.isError ? ', error' : ''}): ${stringify(part.output)}`,
        );
      }
    }
  }
  const only = conversation[0];
  if (conversation.length === 1 && only?.role === 'user') {
    return { system: system.join('\n\n'), conversation: only.content.map((part) => part.text).join('') };
  }
  return { system: system.join('\n\n'), conversation: turns.join('\n\n') };
}
