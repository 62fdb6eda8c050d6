import type {
  AssistantContentPart,
  CallOptions,
  GenerateResult,
  ProviderMetadata,
  StreamPart,
  Usage,
} from '@hal-ai/spec';
import type { EventSourceMessage } from 'eventsource-parser';
import { HttpLanguageModel, type HttpModelConfig } from '../shared/http-language-model.js';
import { finishPart, generateResult, numberOrUndefined } from '../shared/model-helpers.js';
import { badResponse, streamEventError } from '../shared/provider-error.js';
import { parseEventData, type StreamEventMapper } from '../shared/stream-driver.js';
import {
  convertToGeminiContents,
  GEMINI_METADATA_KEY,
  type GeminiContent,
} from './convert-to-gemini-contents.js';
import { mapGeminiFinishReason } from './map-gemini-finish-reason.js';
import { type GeminiThinkingConfig, prepareGeminiThinking } from './prepare-gemini-thinking.js';
import {
  type GeminiFunctionDeclaration,
  type GeminiToolConfig,
  prepareGeminiTools,
} from './prepare-gemini-tools.js';

const PROVIDER = 'gemini';

/** The JSON body of `generateContent` / `streamGenerateContent` as HAL builds it. */
export interface GeminiGenerateBody {
  contents: GeminiContent[];
  systemInstruction?: { parts: Array<{ text: string }> };
  tools?: Array<{ functionDeclarations: GeminiFunctionDeclaration[] }>;
  toolConfig?: GeminiToolConfig;
  generationConfig?: {
    maxOutputTokens?: number;
    temperature?: number;
    thinkingConfig?: GeminiThinkingConfig;
  };
}

/** @internal What a Gemini model needs from its provider. */
export interface GeminiModelConfig extends HttpModelConfig {
  /** Makes the ids Gemini's function calls lack. */
  generateId: () => string;
}

/**
 * Builds the `generateContent` body of one call (pure; exported for request-body tests). The model id picks the
 * `thinkingConfig` shape its family expects.
 */
export function buildGeminiGenerateBody(options: CallOptions, modelId = ''): GeminiGenerateBody {
  const generationConfig = {
    ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...prepareGeminiThinking(modelId, options.reasoning),
  };
  return {
    ...convertToGeminiContents(options.prompt),
    ...prepareGeminiTools(options.tools, options.toolChoice),
    ...(Object.keys(generationConfig).length > 0 ? { generationConfig } : {}),
  };
}

interface GeminiUsageWire {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  totalTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
}

interface GeminiPartWire {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { name?: string; args?: unknown };
}

/** The part's signature as `providerMetadata`, kept to be sent back unchanged. */
function signatureMetadata(part: GeminiPartWire): { providerMetadata?: ProviderMetadata } {
  return typeof part.thoughtSignature === 'string' && part.thoughtSignature.length > 0
    ? { providerMetadata: { [GEMINI_METADATA_KEY]: { thoughtSignature: part.thoughtSignature } } }
    : {};
}

interface GeminiResponseWire {
  candidates?: Array<{
    content?: {
      parts?: GeminiPartWire[];
    };
    finishReason?: string;
  }>;
  promptFeedback?: { blockReason?: string };
  usageMetadata?: GeminiUsageWire;
  modelVersion?: string;
  responseId?: string;
  error?: { code?: number; message?: string; status?: string };
}

function toUsage(usage: GeminiUsageWire | undefined): Usage {
  return {
    inputTokens: numberOrUndefined(usage?.promptTokenCount),
    outputTokens: numberOrUndefined(usage?.candidatesTokenCount),
    totalTokens: numberOrUndefined(usage?.totalTokenCount),
    cachedInputTokens: numberOrUndefined(usage?.cachedContentTokenCount),
    reasoningTokens: numberOrUndefined(usage?.thoughtsTokenCount),
  };
}

/** @internal A Gemini model over `generateContent`. */
export class GeminiLanguageModel extends HttpLanguageModel<GeminiModelConfig> {
  readonly provider = PROVIDER;

  private path(method: string): string {
    return `/v1beta/models/${encodeURIComponent(this.modelId)}:${method}`;
  }

  async doGenerate(options: CallOptions): Promise<GenerateResult> {
    const body = buildGeminiGenerateBody(options, this.modelId);
    const json = (await this.postJson(options, this.path('generateContent'), body)) as GeminiResponseWire;
    if (!json || typeof json !== 'object') throw badResponse(PROVIDER, 'the response is not an object');
    const candidate = json.candidates?.[0];
    const content: AssistantContentPart[] = [];
    // Thought summaries (`thought: true`) are not the answer and are not asked for; each other part keeps its
    // `thoughtSignature` so the next request can send it back on the same part.
    for (const part of candidate?.content?.parts ?? []) {
      if (typeof part.text === 'string' && !part.thought) {
        content.push({ type: 'text', text: part.text, ...signatureMetadata(part) });
      }
      if (part.functionCall) {
        content.push({
          type: 'tool-call',
          toolCallId: this.config.generateId(),
          toolName: String(part.functionCall.name),
          input: part.functionCall.args ?? {},
          ...signatureMetadata(part),
        });
      }
    }
    const hasToolCalls = content.some((part) => part.type === 'tool-call');
    const finishReason = json.promptFeedback?.blockReason
      ? 'content-filter'
      : mapGeminiFinishReason(candidate?.finishReason, hasToolCalls);
    return generateResult(content, finishReason, toUsage(json.usageMetadata), {
      id: json.responseId,
      modelId: json.modelVersion,
    });
  }

  async doStream(options: CallOptions): Promise<{ stream: ReadableStream<StreamPart> }> {
    return this.postStream(
      options,
      `${this.path('streamGenerateContent')}?alt=sse`,
      buildGeminiGenerateBody(options, this.modelId),
      (secrets) => new GeminiStreamMapper(secrets, this.config.generateId),
    );
  }
}

/**
 * Maps Gemini SSE chunks (whole responses; the last carries `finishReason`) to stream parts. A run of text ends at
 * the next function call, so a signature that came on one of its parts (often an empty last one) rides on that
 * run's `text-end`; a function call's signature rides on its `tool-call`.
 */
class GeminiStreamMapper implements StreamEventMapper {
  // Gemini has no final marker event: the stream is complete once a finish reason came and the body ended.
  readonly done = false;
  private metadataSent = false;
  private textOpen = false;
  private textRuns = 0;
  private textSignature: { providerMetadata?: ProviderMetadata } = {};
  private finishReason: string | undefined;
  private blocked = false;
  private toolCalls = 0;
  private usage: Usage = {};

  constructor(
    private readonly secrets: readonly string[],
    private readonly generateId: () => string,
  ) {}

  *onEvent(event: EventSourceMessage): Iterable<StreamPart> {
    const chunk = parseEventData(PROVIDER, event) as GeminiResponseWire | null;
    if (!chunk || typeof chunk !== 'object') throw badResponse(PROVIDER, 'a stream chunk is not an object');
    if (chunk.error) {
      throw streamEventError(
        PROVIDER,
        chunk.error.status ?? (chunk.error.code === undefined ? undefined : String(chunk.error.code)),
        chunk.error.message,
        this.secrets,
      );
    }
    if (!this.metadataSent && (chunk.responseId || chunk.modelVersion)) {
      this.metadataSent = true;
      yield { type: 'response-metadata', id: chunk.responseId, modelId: chunk.modelVersion };
    }
    if (chunk.usageMetadata) this.usage = toUsage(chunk.usageMetadata);
    if (chunk.promptFeedback?.blockReason) this.blocked = true;
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (typeof part.text === 'string' && !part.thought) {
        if (part.text.length > 0 && !this.textOpen) {
          this.textOpen = true;
          yield { type: 'text-start', id: this.textId() };
        }
        if (part.text.length > 0) yield { type: 'text-delta', id: this.textId(), delta: part.text };
        if (this.textOpen && part.thoughtSignature) this.textSignature = signatureMetadata(part);
      }
      if (part.functionCall) {
        yield* this.closeText();
        const id = this.generateId();
        const toolName = String(part.functionCall.name);
        const input = part.functionCall.args ?? {};
        this.toolCalls += 1;
        yield { type: 'tool-input-start', id, toolName };
        yield { type: 'tool-input-delta', id, delta: JSON.stringify(input) };
        yield { type: 'tool-input-end', id };
        yield { type: 'tool-call', toolCallId: id, toolName, input, ...signatureMetadata(part) };
      }
    }
    if (candidate?.finishReason) this.finishReason = candidate.finishReason;
  }

  private textId(): string {
    return String(this.textRuns);
  }

  private *closeText(): Iterable<StreamPart> {
    if (!this.textOpen) return;
    this.textOpen = false;
    yield { type: 'text-end', id: this.textId(), ...this.textSignature };
    this.textSignature = {};
    this.textRuns += 1;
  }

  *onEnd(): Iterable<StreamPart> {
    if (!this.finishReason && !this.blocked)
      throw badResponse(PROVIDER, 'the stream was cut before a finish reason');
    yield* this.closeText();
    yield finishPart(
      this.blocked ? 'content-filter' : mapGeminiFinishReason(this.finishReason, this.toolCalls > 0),
      this.usage,
    );
  }
}
