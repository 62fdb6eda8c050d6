import type { StreamPart } from '@hal-ai/spec';

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
