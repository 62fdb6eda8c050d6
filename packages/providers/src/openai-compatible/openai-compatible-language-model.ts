import type { CallOptions, GenerateResult, StreamPart, TextPart, ToolCallPart, Usage } from '@hal-ai/spec';
import type { EventSourceMessage } from 'eventsource-parser';
import { HttpLanguageModel, type HttpModelConfig } from '../shared/http-language-model.js';
import { finishPart, generateResult, numberOrUndefined } from '../shared/model-helpers.js';
import { badResponse, streamEventError } from '../shared/provider-error.js';
import { parseEventData, parseToolInput, type StreamEventMapper } from '../shared/stream-driver.js';
import {
  convertToOpenAICompatibleMessages,
  type OpenAICompatibleMessage,
} from './convert-to-openai-compatible-messages.js';
import { mapOpenAICompatibleFinishReason } from './map-openai-compatible-finish-reason.js';
import {
  type OpenAICompatibleTool,
  type OpenAICompatibleToolChoice,
  prepareOpenAICompatibleTools,
} from './prepare-openai-compatible-tools.js';

/** The JSON body of `POST {baseUrl}/chat/completions` as HAL builds it (without the streaming fields). */
export interface OpenAICompatibleChatBody {
  model: string;
  messages: OpenAICompatibleMessage[];
  tools?: OpenAICompatibleTool[];
  tool_choice?: OpenAICompatibleToolChoice;
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  /** OpenAI's reasoning models (o-series, GPT-5): how much they reason before answering. */
  reasoning_effort?: 'low' | 'medium' | 'high';
}

/** @internal What an OpenAI-compatible model needs from its provider. */
export interface OpenAICompatibleModelConfig extends HttpModelConfig {
  provider: string;
  /** OpenAI's newer models take `max_completion_tokens`; most compatible services still `max_tokens`. */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
}

/**
 * Builds the Chat Completions body of one call (pure; exported for request-body tests). A reasoning level other
 * than `off` becomes `reasoning_effort` with the same name; `off` sends nothing, so models without reasoning are
 * never refused for it.
 */
export function buildOpenAICompatibleChatBody(
  modelId: string,
  options: CallOptions,
  maxTokensField: OpenAICompatibleModelConfig['maxTokensField'] = 'max_tokens',
): OpenAICompatibleChatBody {
  return {
    model: modelId,
    messages: convertToOpenAICompatibleMessages(options.prompt),
    ...prepareOpenAICompatibleTools(options.tools, options.toolChoice),
    ...(options.maxOutputTokens !== undefined ? { [maxTokensField]: options.maxOutputTokens } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.reasoning && options.reasoning !== 'off' ? { reasoning_effort: options.reasoning } : {}),
  };
}

interface OpenAIUsageWire {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}

function toUsage(usage: OpenAIUsageWire | null | undefined): Usage {
  return {
    inputTokens: numberOrUndefined(usage?.prompt_tokens),
    outputTokens: numberOrUndefined(usage?.completion_tokens),
    totalTokens: numberOrUndefined(usage?.total_tokens),
    cachedInputTokens: numberOrUndefined(usage?.prompt_tokens_details?.cached_tokens),
    reasoningTokens: numberOrUndefined(usage?.completion_tokens_details?.reasoning_tokens),
  };
}

/** @internal A model behind an OpenAI-compatible Chat Completions endpoint. */
export class OpenAICompatibleLanguageModel extends HttpLanguageModel<OpenAICompatibleModelConfig> {
  readonly provider: string;

  constructor(modelId: string, config: OpenAICompatibleModelConfig) {
    super(modelId, config);
    this.provider = config.provider;
  }

  async doGenerate(options: CallOptions): Promise<GenerateResult> {
    const body = buildOpenAICompatibleChatBody(this.modelId, options, this.config.maxTokensField);
    const json = (await this.postJson(options, '/chat/completions', body)) as {
      id?: string;
      model?: string;
      choices?: Array<{
        message?: {
          content?: string | null;
          tool_calls?: Array<{ id?: string; function?: { name?: string; arguments?: string } }>;
        };
        finish_reason?: string;
      }>;
      usage?: OpenAIUsageWire;
    };
    const choice = json?.choices?.[0];
    if (!choice?.message) throw badResponse(this.provider, 'the response has no choices');
    const content: Array<TextPart | ToolCallPart> = [];
    if (choice.message.content) content.push({ type: 'text', text: choice.message.content });
    for (const call of choice.message.tool_calls ?? []) {
      const toolName = String(call.function?.name ?? '');
      content.push({
        type: 'tool-call',
        toolCallId: String(call.id ?? ''),
        toolName,
        input: parseToolInput(this.provider, toolName, call.function?.arguments ?? ''),
      });
    }
    return generateResult(
      content,
      mapOpenAICompatibleFinishReason(choice.finish_reason),
      toUsage(json.usage),
      {
        id: json.id,
        modelId: json.model,
      },
    );
  }

  async doStream(options: CallOptions): Promise<{ stream: ReadableStream<StreamPart> }> {
    const body = {
      ...buildOpenAICompatibleChatBody(this.modelId, options, this.config.maxTokensField),
      stream: true as const,
      stream_options: { include_usage: true },
    };
    return this.postStream(
      options,
      '/chat/completions',
      body,
      (secrets) => new OpenAICompatibleStreamMapper(this.provider, secrets),
    );
  }
}

interface ChunkWire {
  id?: string;
  model?: string;
  error?: { message?: string; type?: string; code?: string | number | null };
  choices?: Array<{
    delta?: {
      content?: string | null;
      tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>;
    };
    finish_reason?: string | null;
  }>;
  usage?: OpenAIUsageWire | null;
}

interface PendingCall {
  id: string;
  name: string;
  args: string;
  started: boolean;
}

/** Maps Chat Completions chunks (`data: {...}` … `data: [DONE]`) to stream parts. */
class OpenAICompatibleStreamMapper implements StreamEventMapper {
  done = false;
  private metadataSent = false;
  private textOpen = false;
  private readonly calls = new Map<number, PendingCall>();
  private finishReason: string | undefined;
  private usage: Usage = {};

  constructor(
    private readonly provider: string,
    private readonly secrets: readonly string[],
  ) {}

  *onEvent(event: EventSourceMessage): Iterable<StreamPart> {
    if (event.data.trim() === '[DONE]') {
      yield* this.complete();
      return;
    }
    const chunk = parseEventData(this.provider, event) as ChunkWire | null;
    if (!chunk || typeof chunk !== 'object')
      throw badResponse(this.provider, 'a stream chunk is not an object');
    if (chunk.error) {
      const type = chunk.error.type ?? (chunk.error.code == null ? undefined : String(chunk.error.code));
      throw streamEventError(this.provider, type, chunk.error.message, this.secrets);
    }
    if (!this.metadataSent && (chunk.id || chunk.model)) {
      this.metadataSent = true;
      yield { type: 'response-metadata', id: chunk.id, modelId: chunk.model };
    }
    if (chunk.usage) this.usage = toUsage(chunk.usage);
    const choice = chunk.choices?.[0];
    const delta = choice?.delta;
    if (typeof delta?.content === 'string' && delta.content.length > 0) {
      if (!this.textOpen) {
        this.textOpen = true;
        yield { type: 'text-start', id: 'text-0' };
      }
      yield { type: 'text-delta', id: 'text-0', delta: delta.content };
    }
    for (const toolDelta of delta?.tool_calls ?? []) {
      const index = toolDelta.index ?? 0;
      let call = this.calls.get(index);
      if (!call) {
        call = { id: toolDelta.id ?? `call_${index}`, name: '', args: '', started: false };
        this.calls.set(index, call);
      }
      if (toolDelta.function?.name) call.name += toolDelta.function.name;
      if (!call.started && call.name) {
        call.started = true;
        yield { type: 'tool-input-start', id: call.id, toolName: call.name };
      }
      const piece = toolDelta.function?.arguments ?? '';
      if (piece) {
        call.args += piece;
        if (call.started) yield { type: 'tool-input-delta', id: call.id, delta: piece };
      }
    }
    if (choice?.finish_reason) this.finishReason = choice.finish_reason;
  }

  onEnd(): Iterable<StreamPart> {
    if (this.done) return [];
    // Some compatible services omit `[DONE]`; a stream that reported its finish reason is complete.
    if (this.finishReason) return this.complete();
    throw badResponse(this.provider, 'the stream was cut before it finished');
  }

  private *complete(): Iterable<StreamPart> {
    this.done = true;
    if (this.textOpen) yield { type: 'text-end', id: 'text-0' };
    // Parse every call first: one bad argument string must not leave earlier calls emitted without it.
    const parsed = [...this.calls.values()].map((call) => ({
      call,
      input: parseToolInput(this.provider, call.name, call.args),
    }));
    for (const { call, input } of parsed) {
      if (!call.started) yield { type: 'tool-input-start', id: call.id, toolName: call.name };
      yield { type: 'tool-input-end', id: call.id };
      yield { type: 'tool-call', toolCallId: call.id, toolName: call.name, input };
    }
    yield finishPart(mapOpenAICompatibleFinishReason(this.finishReason), this.usage);
  }
}
