import type { AssistantContentPart, StreamPart } from '@hal-ai/spec';

/**
 * Reads a model's part stream to the end.
 *
 * @example
 * const parts = await collectStreamParts((await model.doStream({ prompt })).stream);
 */
export async function collectStreamParts(stream: ReadableStream<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parts;
    parts.push(value);
  }
}

/** The text of the `text-delta` parts, joined. */
export function streamedText(parts: StreamPart[]): string {
  return parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join('');
}

/**
 * The assistant turn a consumer stores from a response's parts: reasoning, text runs and tool calls in order,
 * each with the `providerMetadata` its provider needs back. Feed it to the next prompt of a tool loop.
 *
 * @example
 * const content = assistantContent(await collectStreamParts(stream));
 * const next = [...prompt, { role: 'assistant', content }, { role: 'tool', content: results }];
 */
export function assistantContent(parts: StreamPart[]): AssistantContentPart[] {
  const content: AssistantContentPart[] = [];
  const open = new Map<string, string>();
  for (const part of parts) {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start':
        open.set(`${part.type}:${part.id}`, '');
        break;
      case 'text-delta':
      case 'reasoning-delta': {
        const key = `${part.type.replace('-delta', '-start')}:${part.id}`;
        open.set(key, (open.get(key) ?? '') + part.delta);
        break;
      }
      case 'text-end':
      case 'reasoning-end': {
        const kind = part.type === 'text-end' ? 'text' : 'reasoning';
        const key = `${kind}-start:${part.id}`;
        content.push({
          type: kind,
          text: open.get(key) ?? '',
          ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}),
        });
        open.delete(key);
        break;
      }
      case 'tool-call': {
        const { type: _type, ...call } = part;
        content.push({ type: 'tool-call', ...call });
        break;
      }
      default:
        break;
    }
  }
  return content;
}
