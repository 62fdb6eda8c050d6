/**
 * Consuming one model response: the stream parts of a `LanguageModel.doStream` call become the reply's content
 * blocks, its tool calls, the usage the provider reported and, if it failed, an error (never thrown). Nothing is
 * stored here: text deltas go to `onDelta` (the turn publishes them as `delta` events) and the caller writes the
 * message once at the end.
 */
import {
  type CallOptions,
  type ContentBlock,
  type ErrorInfo,
  HalError,
  type LanguageModel,
  type StreamPart,
  type Usage,
} from '@hal-ai/spec';

/** A turn cancelled by the operator, a reset or a disabled connection. */
export const CANCELLED: ErrorInfo = { code: 'interrupted', message: 'The turn was cancelled' };

/** A model call's tool call, as a content block. */
export type ToolCallBlock = Extract<ContentBlock, { type: 'tool-call' }>;

/** What one model response amounted to. */
export interface ModelStreamOutcome {
  /**
   * Reasoning, text (deltas merged) and tool calls, in stream order, each with the provider's opaque data
   * (`providerMetadata`) so the next call can send it back unchanged. Reasoning is kept, never shown or relayed.
   */
  blocks: ContentBlock[];
  toolCalls: ToolCallBlock[];
  /** Only what the provider reported; `null` when it reported nothing. */
  usage: Usage | null;
  /** Set when the call failed, was cut off before `finish`, or was cancelled. */
  error: ErrorInfo | null;
}

/** An error as a turn stores it: HAL errors keep their code; anything else is `provider_unavailable`. */
export function toErrorInfo(error: unknown): ErrorInfo {
  if (HalError.isInstance(error)) return { code: error.code, message: error.message };
  if (error instanceof Error && error.name === 'AbortError') return CANCELLED;
  return { code: 'provider_unavailable', message: 'The model call failed' };
}

function reportedUsage(usage: Usage | undefined): Usage | null {
  if (!usage) return null;
  const fields = Object.entries(usage).filter(([, value]) => typeof value === 'number');
  return fields.length > 0 ? (Object.fromEntries(fields) as Usage) : null;
}

/** The text of a reply's blocks, joined. */
export function textOf(blocks: readonly ContentBlock[]): string {
  return blocks.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/**
 * Calls `model.doStream(options)` and reads the response to its end. `options.abortSignal` cancels it even when
 * an adapter ignores the signal: the read stops and the outcome is {@link CANCELLED}.
 */
export async function consumeModelStream(
  model: LanguageModel,
  options: CallOptions,
  onDelta: (text: string) => void,
): Promise<ModelStreamOutcome> {
  const blocks: ContentBlock[] = [];
  const toolCalls: ToolCallBlock[] = [];
  let usage: Usage | null = null;
  let error: ErrorInfo | null = null;
  let finished = false;
  let reader: ReadableStreamDefaultReader<StreamPart> | undefined;
  const reasoning = new Map<string, Extract<ContentBlock, { type: 'reasoning' }>>();
  const signal = options.abortSignal;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new HalError('interrupted', CANCELLED.message));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  let opened: Promise<{ stream: ReadableStream<StreamPart> }>;
  try {
    opened = Promise.resolve(model.doStream(options));
  } catch (thrown) {
    opened = Promise.reject(thrown);
  }
  opened.catch(() => undefined);
  try {
    // A stream that opens after the cancel is closed at once.
    opened
      .then(({ stream }) => {
        if (signal?.aborted) return stream.cancel();
      })
      .catch(() => undefined);
    const { stream } = await Promise.race([opened, aborted]);
    reader = stream.getReader();
    for (;;) {
      const { done, value: part } = await Promise.race([reader.read(), aborted]);
      if (done) break;
      if (part.type === 'text-delta') {
        if (!part.delta) continue;
        const last = blocks.at(-1);
        if (last?.type === 'text') last.text += part.delta;
        else blocks.push({ type: 'text', text: part.delta });
        onDelta(part.delta);
      } else if (part.type === 'text-end') {
        const last = blocks.at(-1);
        if (part.providerMetadata && last?.type === 'text') last.providerMetadata = part.providerMetadata;
      } else if (part.type === 'reasoning-start') {
        const block = { type: 'reasoning' as const, text: '' };
        reasoning.set(part.id, block);
        blocks.push(block);
      } else if (part.type === 'reasoning-delta') {
        const block = reasoning.get(part.id);
        if (block) block.text += part.delta;
      } else if (part.type === 'reasoning-end') {
        const block = reasoning.get(part.id);
        if (block && part.providerMetadata) block.providerMetadata = part.providerMetadata;
        reasoning.delete(part.id);
      } else if (part.type === 'tool-call') {
        const block: ToolCallBlock = {
          type: 'tool-call',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: part.input,
          ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}),
        };
        blocks.push(block);
        toolCalls.push(block);
      } else if (part.type === 'finish') {
        finished = true;
        usage = reportedUsage(part.usage);
      } else if (part.type === 'error') {
        error = toErrorInfo(part.error);
        break;
      }
    }
  } catch (thrown) {
    error = toErrorInfo(thrown);
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    reader?.cancel().catch(() => undefined);
  }
  if (signal?.aborted) error = CANCELLED;
  if (!error && !finished) {
    error = { code: 'provider_bad_response', message: 'The stream ended before the model finished' };
  }
  return { blocks, toolCalls, usage, error };
}
