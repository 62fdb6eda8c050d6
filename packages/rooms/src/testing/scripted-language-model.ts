import type { CallOptions, GenerateResult, LanguageModel, StreamPart, Usage } from '@hal-ai/spec';

/** One scripted response: its parts, and optionally a gate awaited after the first parts. */
export interface ScriptedResponse {
  parts: StreamPart[];
  /** Awaited after the first part is delivered (lets a test prove that two streams overlap). */
  gate?: Promise<unknown>;
  /** How many parts are delivered before the gate is awaited (default 1). */
  gateAfter?: number;
}

/** A step of the script: fixed parts, or a function of the call (to answer from the prompt). */
export type ScriptStep =
  | StreamPart[]
  | ScriptedResponse
  | ((options: CallOptions) => StreamPart[] | ScriptedResponse);

/** A fake model that streams scripted parts with small real delays and records every call. */
export interface ScriptedLanguageModel extends LanguageModel {
  /** The options of every call, in order. */
  readonly calls: CallOptions[];
  /** How many of its streams the caller cancelled. */
  readonly cancelled: number;
  /** Resolves when the n-th call (1-based) has started streaming. */
  started(n?: number): Promise<void>;
}

/**
 * Creates a scripted {@link LanguageModel}: call n streams step n (after the script runs out,
 * the last step repeats). Honours `abortSignal` like a real adapter (the stream errors).
 */
export function createScriptedModel(settings: {
  modelId?: string;
  provider?: string;
  steps: ScriptStep[];
  delayMs?: number;
}): ScriptedLanguageModel {
  const calls: CallOptions[] = [];
  let cancelled = 0;
  const delayMs = settings.delayMs ?? 2;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  const step = (options: CallOptions): ScriptedResponse => {
    const index = Math.min(calls.length - 1, settings.steps.length - 1);
    const raw = settings.steps[index];
    if (raw === undefined) return { parts: textReply('ok') };
    const value = typeof raw === 'function' ? raw(options) : raw;
    return Array.isArray(value) ? { parts: value } : value;
  };

  return {
    provider: settings.provider ?? 'scripted',
    modelId: settings.modelId ?? 'scripted-1',
    calls,
    get cancelled() {
      return cancelled;
    },
    started(n = 1) {
      if (calls.length >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    async doGenerate(): Promise<GenerateResult> {
      throw new Error('The scripted model only streams');
    },
    async doStream(options) {
      calls.push(options);
      const response = step(options);
      for (const waiter of waiters.filter((entry) => entry.n <= calls.length)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      let index = 0;
      const stream = new ReadableStream<StreamPart>({
        async pull(controller) {
          await sleep(delayMs);
          if (options.abortSignal?.aborted) {
            controller.error(Object.assign(new Error('aborted'), { name: 'AbortError' }));
            return;
          }
          const part = response.parts[index];
          if (part === undefined) {
            controller.close();
            return;
          }
          controller.enqueue(part);
          index += 1;
          if (index === (response.gateAfter ?? 1) && response.gate) await response.gate;
        },
        cancel() {
          cancelled += 1;
        },
      });
      return { stream };
    },
  };
}

/** A complete text reply, streamed in a few deltas. */
export function textReply(text: string, usage?: Usage): StreamPart[] {
  const chunks = text.match(/[\s\S]{1,8}/g) ?? [];
  return [
    { type: 'stream-start' },
    { type: 'text-start', id: 't1' },
    ...chunks.map((delta): StreamPart => ({ type: 'text-delta', id: 't1', delta })),
    { type: 'text-end', id: 't1' },
    { type: 'finish', finishReason: 'stop', ...(usage ? { usage } : {}) },
  ];
}

/** A reply that calls tools (optionally after some text). */
export function toolCallReply(
  calls: Array<{ toolName: string; input: unknown; toolCallId?: string }>,
  text = '',
): StreamPart[] {
  return [
    { type: 'stream-start' },
    ...(text ? textReply(text).slice(1, -1) : []),
    ...calls.map(
      (call, index): StreamPart => ({
        type: 'tool-call',
        toolCallId: call.toolCallId ?? `call_${index}_${Math.random().toString(36).slice(2, 8)}`,
        toolName: call.toolName,
        input: call.input,
      }),
    ),
    { type: 'finish', finishReason: 'tool-calls' },
  ];
}
