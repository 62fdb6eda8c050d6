import type { HalError } from './errors.js';
import type { JsonSchema, ToolRisk } from './tools.js';

/** A text part of a prompt message. */
export interface TextPart {
  type: 'text';
  text: string;
}

/** A model's request to call a tool; `input` is the parsed JSON arguments. */
export interface ToolCallPart {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** The result of a tool call, sent back to the model. `output` is JSON-serialisable. */
export interface ToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: unknown;
  isError?: boolean;
}

/** One message of a provider-neutral prompt. */
export type PromptMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: TextPart[] }
  | { role: 'assistant'; content: Array<TextPart | ToolCallPart> }
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
  /** Cancels the call; adapters stop reading and release the connection or kill the process. */
  abortSignal?: AbortSignal;
  /** Extra request headers (never logged). */
  headers?: Record<string, string | undefined>;
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
 * stream (`error`), not throws, so a consumer has exactly one ending path.
 */
export type StreamPart =
  | { type: 'stream-start' }
  | { type: 'response-metadata'; id?: string; modelId?: string }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'tool-input-start'; id: string; toolName: string }
  | { type: 'tool-input-delta'; id: string; delta: string }
  | { type: 'tool-input-end'; id: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'finish'; finishReason: FinishReason; usage?: Usage }
  | { type: 'error'; error: HalError };

/** The result of a non-streaming call. */
export interface GenerateResult {
  content: Array<TextPart | ToolCallPart>;
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
