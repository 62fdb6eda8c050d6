import type { FinishReason, GenerateResult, StreamPart, Usage } from '@hal-ai/spec';

/** @internal A tool result as text for providers that take strings. */
export function toolOutputText(output: unknown): string {
  return typeof output === 'string' ? output : JSON.stringify(output ?? null);
}

/** @internal The usage if the provider reported any field, else `undefined` (never estimated). */
export function reportedUsage(usage: Usage): Usage | undefined {
  const entries = Object.entries(usage).filter(([, value]) => typeof value === 'number');
  return entries.length > 0 ? (Object.fromEntries(entries) as Usage) : undefined;
}

/** @internal A number from a wire field, or `undefined`. */
export function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** @internal The text of system messages, joined. */
export function joinSystem(parts: string[]): string | undefined {
  const text = parts.filter((part) => part.length > 0).join('\n\n');
  return text.length > 0 ? text : undefined;
}

/** @internal The `finish` part of a stream, with the usage only when the provider reported some. */
export function finishPart(finishReason: FinishReason, usage: Usage): StreamPart {
  const reported = reportedUsage(usage);
  return { type: 'finish', finishReason, ...(reported ? { usage: reported } : {}) };
}

/** @internal A `doGenerate` result, with the usage only when the provider reported some. */
export function generateResult(
  content: GenerateResult['content'],
  finishReason: FinishReason,
  usage: Usage,
  response: GenerateResult['response'],
): GenerateResult {
  const reported = reportedUsage(usage);
  return { content, finishReason, ...(reported ? { usage: reported } : {}), response };
}
