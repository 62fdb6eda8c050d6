import type { AssistantContentPart, CallOptions, GenerateResult, StreamPart, Usage } from '@hal-ai/spec';
import type { EventSourceMessage } from 'eventsource-parser';
import { HttpLanguageModel, type HttpModelConfig } from '../shared/http-language-model.js';
import { finishPart, generateResult, numberOrUndefined } from '../shared/model-helpers.js';
import { badResponse, streamEventError } from '../shared/provider-error.js';
import { parseEventData, parseToolInput, type StreamEventMapper } from '../shared/stream-driver.js';
import {
  ANTHROPIC_METADATA_KEY,
  type AnthropicMessage,
  convertToAnthropicMessages,
} from './convert-to-anthropic-messages.js';
import { mapAnthropicFinishReason } from './map-anthropic-finish-reason.js';
import { type AnthropicThinking, prepareAnthropicThinking } from './prepare-anthropic-thinking.js';
import {
  type AnthropicTool,
  type AnthropicToolChoice,
  prepareAnthropicTools,
} from './prepare-anthropic-tools.js';

const PROVIDER = 'anthropic';

/** The JSON body of `POST /v1/messages` as HAL builds it. */
export interface AnthropicMessagesBody {
  model: string;
  max_tokens: number;
  system?: string;
  messages: AnthropicMessage[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  temperature?: number;
  thinking?: AnthropicThinking;
}

/** @internal What an Anthropic model needs from its provider. */
export interface AnthropicModelConfig extends HttpModelConfig {
  defaultMaxOutputTokens: number;
}

/** Builds the Messages API body of one call (pure; exported for request-body tests). */
export function buildAnthropicMessagesBody(
  modelId: string,
  options: CallOptions,
  defaultMaxOutputTokens = 4096,
): AnthropicMessagesBody {
  const { system, messages } = convertToAnthropicMessages(options.prompt);
  const { thinking, maxTokens } = prepareAnthropicThinking(
    options,
    options.maxOutputTokens ?? defaultMaxOutputTokens,
  );
  return {
    model: modelId,
    max_tokens: maxTokens,
    ...(system ? { system } : {}),
    messages,
    ...prepareAnthropicTools(options.tools, options.toolChoice),
    // With thinking the API accepts no temperature but its own.
    ...(options.temperature !== undefined && !thinking ? { temperature: options.temperature } : {}),
    ...(thinking ? { thinking } : {}),
  };
}

interface AnthropicUsageWire {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
}

function toUsage(usage: AnthropicUsageWire | undefined): Usage {
  return {
    inputTokens: numberOrUndefined(usage?.input_tokens),
    outputTokens: numberOrUndefined(usage?.output_tokens),
    cachedInputTokens: numberOrUndefined(usage?.cache_read_input_tokens),
  };
}

/** @internal A Claude model over the Messages API. */
export class AnthropicLanguageModel extends HttpLanguageModel<AnthropicModelConfig> {
  readonly provider = PROVIDER;

  async doGenerate(options: CallOptions): Promise<GenerateResult> {
    const body = buildAnthropicMessagesBody(this.modelId, options, this.config.defaultMaxOutputTokens);
    const json = (await this.postJson(options, '/v1/messages', body)) as {
      id?: string;
      model?: string;
      content?: AnthropicBlockWire[];
      stop_reason?: string;
      usage?: AnthropicUsageWire;
    };
    if (!Array.isArray(json?.content)) throw badResponse(PROVIDER, 'the response has no content');
    const content: AssistantContentPart[] = [];
    for (const block of json.content) {
      const reasoning = reasoningPart(block);
      if (reasoning) content.push(reasoning);
      if (block.type === 'text' && typeof block.text === 'string')
        content.push({ type: 'text', text: block.text });
      if (block.type === 'tool_use') {
        content.push({
          type: 'tool-call',
          toolCallId: String(block.id),
          toolName: String(block.name),
          input: block.input ?? {},
        });
      }
    }
    return generateResult(content, mapAnthropicFinishReason(json.stop_reason), toUsage(json.usage), {
      id: json.id,
      modelId: json.model,
    });
  }

  async doStream(options: CallOptions): Promise<{ stream: ReadableStream<StreamPart> }> {
    const body = {
      ...buildAnthropicMessagesBody(this.modelId, options, this.config.defaultMaxOutputTokens),
      stream: true,
    };
    return this.postStream(options, '/v1/messages', body, (secrets) => new AnthropicStreamMapper(secrets));
  }
}

interface AnthropicBlockWire {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  thinking?: string;
  signature?: string;
  data?: string;
}

/** A thinking or redacted thinking block as a reasoning part that keeps what Claude needs back. */
function reasoningPart(
  block: AnthropicBlockWire,
): Extract<AssistantContentPart, { type: 'reasoning' }> | null {
  if (block.type === 'thinking') {
    return {
      type: 'reasoning',
      text: String(block.thinking ?? ''),
      providerMetadata: { [ANTHROPIC_METADATA_KEY]: { signature: String(block.signature ?? '') } },
    };
  }
  if (block.type === 'redacted_thinking') {
    return {
      type: 'reasoning',
      text: '',
      providerMetadata: { [ANTHROPIC_METADATA_KEY]: { redactedData: String(block.data ?? '') } },
    };
  }
  return null;
}

interface AnthropicStreamEvent {
  type?: string;
  index?: number;
  message?: { id?: string; model?: string; usage?: AnthropicUsageWire };
  content_block?: AnthropicBlockWire;
  delta?: {
    type?: string;
    text?: string;
    partial_json?: string;
    stop_reason?: string;
    thinking?: string;
    signature?: string;
  };
  usage?: AnthropicUsageWire;
  error?: { type?: string; message?: string };
}

type Block =
  | { kind: 'text' }
  | { kind: 'tool'; id: string; name: string; json: string }
  | { kind: 'thinking'; signature: string }
  | { kind: 'redacted'; data: string }
  | { kind: 'other' };

/** Maps Anthropic SSE events (`message_start` … `message_stop`) to stream parts. */
class AnthropicStreamMapper implements StreamEventMapper {
  done = false;
  private readonly blocks = new Map<number, Block>();
  private usage: Usage = {};
  private stopReason: string | undefined;

  constructor(private readonly secrets: readonly string[]) {}

  *onEvent(event: EventSourceMessage): Iterable<StreamPart> {
    const data = parseEventData(PROVIDER, event) as AnthropicStreamEvent | null;
    switch (data?.type) {
      case 'message_start': {
        const message = data.message ?? {};
        this.usage = toUsage(message.usage);
        yield { type: 'response-metadata', id: message.id, modelId: message.model };
        break;
      }
      case 'content_block_start': {
        const index = Number(data.index);
        const block: Partial<AnthropicBlockWire> = data.content_block ?? {};
        if (block.type === 'text') {
          this.blocks.set(index, { kind: 'text' });
          yield { type: 'text-start', id: String(index) };
          if (block.text) yield { type: 'text-delta', id: String(index), delta: block.text };
        } else if (block.type === 'tool_use') {
          this.blocks.set(index, { kind: 'tool', id: String(block.id), name: String(block.name), json: '' });
          yield { type: 'tool-input-start', id: String(block.id), toolName: String(block.name) };
        } else if (block.type === 'thinking') {
          this.blocks.set(index, { kind: 'thinking', signature: String(block.signature ?? '') });
          yield { type: 'reasoning-start', id: String(index) };
          if (block.thinking) yield { type: 'reasoning-delta', id: String(index), delta: block.thinking };
        } else if (block.type === 'redacted_thinking') {
          this.blocks.set(index, { kind: 'redacted', data: String(block.data ?? '') });
          yield { type: 'reasoning-start', id: String(index) };
        } else {
          this.blocks.set(index, { kind: 'other' });
        }
        break;
      }
      case 'content_block_delta': {
        const index = Number(data.index);
        const block = this.blocks.get(index);
        const delta = data.delta ?? {};
        if (block?.kind === 'text' && delta.type === 'text_delta' && typeof delta.text === 'string') {
          yield { type: 'text-delta', id: String(index), delta: delta.text };
        } else if (block?.kind === 'thinking' && delta.type === 'thinking_delta' && delta.thinking) {
          yield { type: 'reasoning-delta', id: String(index), delta: delta.thinking };
        } else if (block?.kind === 'thinking' && delta.type === 'signature_delta') {
          block.signature += String(delta.signature ?? '');
        } else if (block?.kind === 'tool' && delta.type === 'input_json_delta') {
          const piece = String(delta.partial_json ?? '');
          block.json += piece;
          if (piece) yield { type: 'tool-input-delta', id: block.id, delta: piece };
        }
        break;
      }
      case 'content_block_stop': {
        const index = Number(data.index);
        const block = this.blocks.get(index);
        if (block?.kind === 'text') yield { type: 'text-end', id: String(index) };
        if (block?.kind === 'thinking' || block?.kind === 'redacted') {
          yield {
            type: 'reasoning-end',
            id: String(index),
            providerMetadata: {
              [ANTHROPIC_METADATA_KEY]:
                block.kind === 'thinking' ? { signature: block.signature } : { redactedData: block.data },
            },
          };
        }
        if (block?.kind === 'tool') {
          const input = parseToolInput(PROVIDER, block.name, block.json);
          yield { type: 'tool-input-end', id: block.id };
          yield { type: 'tool-call', toolCallId: block.id, toolName: block.name, input };
        }
        this.blocks.delete(index);
        break;
      }
      case 'message_delta': {
        this.stopReason = data.delta?.stop_reason ?? this.stopReason;
        const next = toUsage(data.usage);
        this.usage = {
          ...this.usage,
          ...Object.fromEntries(Object.entries(next).filter(([, value]) => value !== undefined)),
        };
        break;
      }
      case 'message_stop': {
        this.done = true;
        yield finishPart(mapAnthropicFinishReason(this.stopReason), this.usage);
        break;
      }
      case 'error':
        throw streamEventError(PROVIDER, data.error?.type, data.error?.message, this.secrets);
      default:
        // `ping` and event types added later are not ours to fail on.
        break;
    }
  }

  onEnd(): Iterable<StreamPart> {
    if (!this.done) throw badResponse(PROVIDER, 'the stream was cut before message_stop');
    return [];
  }
}
