import type { Prompt } from '@hal-ai/spec';
import { convertToAlternatingTurns, withoutEmptyText } from '../shared/convert-to-alternating-turns.js';

/** A Gemini content part as HAL sends it. */
export type GeminiPart =
  | { text: string }
  | { functionCall: { name: string; args: Record<string, unknown> } }
  | { functionResponse: { name: string; response: Record<string, unknown> } };

/** A Gemini content turn. */
export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

function responseObject(output: unknown, isError: boolean | undefined): Record<string, unknown> {
  if (isError) return { error: output };
  // `response` must be a JSON object; wrap anything else.
  return output && typeof output === 'object' && !Array.isArray(output)
    ? (output as Record<string, unknown>)
    : { result: output };
}

/**
 * Converts a HAL prompt to Gemini `contents` plus `systemInstruction`. Gemini's function calls carry no ids, so
 * tool results are matched back to the calls by id and sent as `functionResponse` parts in the order of the
 * calls they answer (name + position is what Gemini pairs on).
 */
export function convertToGeminiContents(prompt: Prompt): {
  systemInstruction?: { parts: Array<{ text: string }> };
  contents: GeminiContent[];
} {
  let lastCallOrder: string[] = [];
  const { system, turns } = convertToAlternatingTurns<GeminiContent['role'], GeminiPart>(
    prompt,
    (message) => {
      switch (message.role) {
        case 'user':
          return { role: 'user', parts: message.content.map((part) => ({ text: part.text })) };
        case 'assistant':
          lastCallOrder = message.content.flatMap((part) =>
            part.type === 'tool-call' ? [part.toolCallId] : [],
          );
          return {
            role: 'model',
            parts: withoutEmptyText(message.content).map((part) =>
              part.type === 'text'
                ? { text: part.text }
                : {
                    functionCall: {
                      name: part.toolName,
                      args: (part.input && typeof part.input === 'object' ? part.input : {}) as Record<
                        string,
                        unknown
                      >,
                    },
                  },
            ),
          };
        case 'tool': {
          const position = (id: string) => {
            const index = lastCallOrder.indexOf(id);
            return index === -1 ? Number.MAX_SAFE_INTEGER : index;
          };
          const ordered = [...message.content].sort(
            (a, b) => position(a.toolCallId) - position(b.toolCallId),
          );
          return {
            role: 'user',
            parts: ordered.map((part) => ({
              functionResponse: { name: part.toolName, response: responseObject(part.output, part.isError) },
            })),
          };
        }
      }
    },
  );
  return { ...(system ? { systemInstruction: { parts: [{ text: system }] } } : {}), contents: turns };
}
