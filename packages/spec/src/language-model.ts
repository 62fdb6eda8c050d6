import type { HalError } from './errors.js';
import type { JsonSchema, ToolRisk } from './tools.js';

/**
 * Data a provider returned for its own use, keyed by provider id (`anthropic`, `gemini`, …): a Gemini
 * `thoughtSignature`, an Anthropic thinking `signature`. It is JSON, stored with the message and sent back
 * unchanged to the provider that wrote it; every other provider ignores it, and nobody shows it.
 *
 * @example
 * const part: ToolCallPart = { type: 'tool-call', toolCallId: 'c1', toolName: 'hal_servers_list', input: {},
 *   providerMetadata: { gemini: { thoughtSignature: 'Cv8BAY…' } } };
 */
export type ProviderMetadata = Record<string, Record<string, unknown>>;

/** A text part of a prompt message. */
export interface TextPart {
  type: 'text';
  text: string;
  /** Opaque data of the provider that wrote this text (e.g. a Gemini `thoughtSignature`). */
  providerMetadata?: ProviderMetadata;
}

/** A model's request to call a tool; `input` is the parsed JSON arguments. */
export interface ToolCallPart {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** Opaque data of the provider that made this call (Gemini 3 refuses a call sent back without it). */
  providerMetadata?: ProviderMetadata;
}

/**
 * A model's reasoning (Anthropic thinking, redacted thinking). Never shown as the answer; kept so it can be sent
 * back to its provider unchanged (`providerMetadata` carries the signature or the redacted data).
 */
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  providerMetadata?: ProviderMetadata;
}

/** How hard a model should think before it answers; `off` asks for nothing (the model's own default). */
export type ReasoningLevel = 'off' | 'low' | 'medium' | 'high';

/** Every reasoning level, in order. */
export const REASONING_LEVELS: readonly ReasoningLevel[] = ['off', 'low', 'medium', 'high'];

/** The result of a tool call, sent back to the model. `output` is JSON-serialisable. */
export interface ToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: unknown;
  isError?: boolean;
}

/** What an assistant message (and a non-streaming result) is made of. */
export type AssistantContentPart = TextPart | ToolCallPart | ReasoningPart;

/** One message of a provider-neutral prompt. */
export type PromptMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: TextPart[] }
  | { role: 'assistant'; content: AssistantContentPart[] }
  | { role: 'tool'; content: ToolResultPart[] };

/** A whole prompt: system messages first, then the conversation in order. */
export type Prompt = PromptMessage[];

/** A tool as declared to a model. The risk tier is HAL's data; providers never see or set it. */
export interface ToolDeclaration {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  risk?: ToolRisk;
}

/** How the model may use the declared tools. */
export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; toolName: string };

/** Options of one model call. */
export interface CallOptions {
  prompt: Prompt;
  tools?: ToolDeclaration[];
  toolChoice?: ToolChoice;
  maxOutputTokens?: number;
  temperature?: number;
  /**
   * How hard the model should think; each adapter maps it to its provider's own parameter (Anthropic `thinking`
   * budget, OpenAI `reasoning_effort`, Gemini `thinkingConfig`). Absent or `off`: no reasoning parameter is sent.
   */
  reasoning?: ReasoningLevel;
  /** Cancels the call; adapters stop reading and release the connection or kill the process. */
  abortSignal?: AbortSignal;
  /** Extra request headers (never logged). */
  headers?: Record<string, string | undefined>;
  /**
   * The conversation this call belongs to, set by the room engine. HTTP adapters ignore it; an adapter that attaches
   * tools of its own to the model (a local CLI with HAL's MCP server) hands it to them, so what they propose lands in
   * this room, attributed to this connection and turn.
   */
  conversation?: CallConversation;
}

/** Where a model call runs: its room, its turn and the connection answering. */
export interface CallConversation {
  roomId: string;
  turnId: string;
  connectionId: string;
}

/**
 * Token usage exactly as the provider reported it. A field the provider did not report is
 * `undefined` — never estimated. A call whose provider reported nothing has no usage at all.
 */
export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cachedInputTokens?: number;
  reasoningTokens?: number;
}

/** Why a model stopped. */
export type FinishReason =
  | 'stop'
  | 'length'
  | 'tool-calls'
  | 'content-filter'
  | 'error'
  | 'other'
  | 'unknown';

/**
 * The parts of a streamed model response, one discriminated union. Errors are parts of the
 * stream (`error`), not throws, so a consumer has exactly one ending path. Reasoning arrives as its own
 * `reasoning-*` parts (never as text); opaque provider data rides on the part that ends a block
 * (`text-end`, `reasoning-end`, `tool-call`).
 */
export type StreamPart =
  | { type: 'stream-start' }
  | { type: 'response-metadata'; id?: string; modelId?: string }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string; providerMetadata?: ProviderMetadata }
  | { type: 'reasoning-start'; id: string }
  | { type: 'reasoning-delta'; id: string; delta: string }
  | { type: 'reasoning-end'; id: string; providerMetadata?: ProviderMetadata }
  | { type: 'tool-input-start'; id: string; toolName: string }
  | { type: 'tool-input-delta'; id: string; delta: string }
  | { type: 'tool-input-end'; id: string }
  | {
      type: 'tool-call';
      toolCallId: string;
      toolName: string;
      input: unknown;
      providerMetadata?: ProviderMetadata;
    }
  | { type: 'finish'; finishReason: FinishReason; usage?: Usage }
  | { type: 'error'; error: HalError };

/** The result of a non-streaming call. */
export interface GenerateResult {
  content: AssistantContentPart[];
  finishReason: FinishReason;
  usage?: Usage;
  response?: { id?: string; modelId?: string };
}

/**
 * One model of one provider. `doStream` resolves once the provider accepted the request (or
 * with a stream that carries a single `error` part); everything after that arrives as parts.
 */
export interface LanguageModel {
  /** Provider id, e.g. `anthropic`, `openai`, `gemini`, `openrouter`, `local-cli`. */
  readonly provider: string;
  /** The model id as the provider names it. */
  readonly modelId: string;
  doGenerate(options: CallOptions): Promise<GenerateResult>;
  doStream(options: CallOptions): Promise<{ stream: ReadableStream<StreamPart> }>;
}

/** A model a provider offers, as its model list reports it. */
export interface ModelInfo {
  id: string;
  displayName?: string;
  contextWindow?: number;
}

/** A configured provider: makes models and lists what it offers. */
export interface ModelProvider {
  readonly provider: string;
  languageModel(modelId: string): LanguageModel;
  listModels(options?: { abortSignal?: AbortSignal }): Promise<ModelInfo[]>;
}
