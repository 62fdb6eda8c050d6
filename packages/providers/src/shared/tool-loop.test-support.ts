import type { AssistantContentPart, Prompt } from '@hal-ai/spec';

/**
 * The next prompt of a tool loop: the question, the assistant turn as the consumer stored it, and one result per
 * call of that turn (every call answered with `output`).
 */
export function continueToolLoop(question: Prompt, content: AssistantContentPart[], output: unknown): Prompt {
  const calls = content.flatMap((part) => (part.type === 'tool-call' ? [part] : []));
  return [
    ...question,
    { role: 'assistant', content },
    {
      role: 'tool',
      content: calls.map((call) => ({
        type: 'tool-result' as const,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output,
      })),
    },
  ];
}
