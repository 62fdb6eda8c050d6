import type { Prompt, ProviderMetadata } from '@hal-ai/spec';
import { convertToAlternatingTurns, withoutEmptyText } from '../shared/convert-to-alternating-turns.js';

/** A Gemini content part as HAL sends it. `thoughtSignature` goes back exactly as the model returned it. */
export type GeminiPart =
  | { text: string; thoughtSignature?: string }
  | { functionCall: { name: string; args: Record<string, unknown> }; thoughtSignature?: string }
  | { functionResponse: { name: string; response: Record<string, unknown> } };

/** A Gemini content turn. */
export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

/** The `providerMetadata` key Gemini's opaque data is kept under. */
export const GEMINI_METADATA_KEY = 'gemini';

/** The part's `thoughtSignature` as Gemini returned it, or nothing. */
function signatureOf(providerMetadata: ProviderMetadata | undefined): { thoughtSignature?: string } {
  const signature = providerMetadata?.[GEMINI_METADATA_KEY]?.thoughtSignature;
  return typeof signature === 'string' && signature.length > 0 ? { thoughtSignature: signature } : {};
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
 * calls they answer (name + position is what Gemini pairs on). A part's `thoughtSignature` (kept in
 * `providerMetadata.gemini`) is sent back on that same part, unchanged: Gemini 3 refuses a function call of the
 * current turn without it. Reasoning parts are not sent (Gemini keeps its thoughts behind the signatures).
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
            parts: withoutEmptyText(message.content).flatMap((part): GeminiPart[] => {
              if (part.type === 'text') return [{ text: part.text, ...signatureOf(part.providerMetadata) }];
              if (part.type !== 'tool-call') return [];
              const args = part.input && typeof part.input === 'object' ? part.input : {};
              return [
                {
                  functionCall: { name: part.toolName, args: args as Record<string, unknown> },
                  ...signatureOf(part.providerMetadata),
                },
              ];
            }),
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
