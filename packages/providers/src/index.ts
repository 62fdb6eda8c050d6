export type { AnthropicMessagesBody } from './anthropic/anthropic-language-model.js';
export { buildAnthropicMessagesBody } from './anthropic/anthropic-language-model.js';
export type { AnthropicProviderSettings } from './anthropic/anthropic-provider.js';
export { ANTHROPIC_DEFAULT_BASE_URL, createAnthropic } from './anthropic/anthropic-provider.js';
export type { AnthropicContentBlock, AnthropicMessage } from './anthropic/convert-to-anthropic-messages.js';
export { convertToAnthropicMessages } from './anthropic/convert-to-anthropic-messages.js';
export { mapAnthropicFinishReason } from './anthropic/map-anthropic-finish-reason.js';
export type { AnthropicTool, AnthropicToolChoice } from './anthropic/prepare-anthropic-tools.js';
export { prepareAnthropicTools } from './anthropic/prepare-anthropic-tools.js';
export * from './connections/index.js';
export type { GeminiContent, GeminiPart } from './gemini/convert-to-gemini-contents.js';
export { convertToGeminiContents } from './gemini/convert-to-gemini-contents.js';
export { convertToGeminiSchema, GEMINI_SCHEMA_KEYWORDS } from './gemini/convert-to-gemini-schema.js';
export type { GeminiGenerateBody } from './gemini/gemini-language-model.js';
export { buildGeminiGenerateBody } from './gemini/gemini-language-model.js';
export type { GeminiProviderSettings } from './gemini/gemini-provider.js';
export { createGemini, GEMINI_DEFAULT_BASE_URL } from './gemini/gemini-provider.js';
export { mapGeminiFinishReason } from './gemini/map-gemini-finish-reason.js';
export type { GeminiFunctionDeclaration, GeminiToolConfig } from './gemini/prepare-gemini-tools.js';
export { prepareGeminiTools } from './gemini/prepare-gemini-tools.js';
export * from './oauth/index.js';
export type { OpenAICompatibleMessage } from './openai-compatible/convert-to-openai-compatible-messages.js';
export { convertToOpenAICompatibleMessages } from './openai-compatible/convert-to-openai-compatible-messages.js';
export { mapOpenAICompatibleFinishReason } from './openai-compatible/map-openai-compatible-finish-reason.js';
export type { OpenAICompatibleChatBody } from './openai-compatible/openai-compatible-language-model.js';
export { buildOpenAICompatibleChatBody } from './openai-compatible/openai-compatible-language-model.js';
export type {
  OpenAICompatibleProviderSettings,
  OpenAIProviderSettings,
  OpenRouterProviderSettings,
} from './openai-compatible/openai-compatible-provider.js';
export {
  createOpenAI,
  createOpenAICompatible,
  createOpenRouter,
  OPENAI_DEFAULT_BASE_URL,
  OPENROUTER_DEFAULT_BASE_URL,
} from './openai-compatible/openai-compatible-provider.js';
export type {
  OpenAICompatibleTool,
  OpenAICompatibleToolChoice,
} from './openai-compatible/prepare-openai-compatible-tools.js';
export { prepareOpenAICompatibleTools } from './openai-compatible/prepare-openai-compatible-tools.js';
export type { CreateProviderSettings, HttpProviderId, ProviderPreset } from './provider-registry.js';
export { checkModelAvailable, createProvider, PROVIDER_PRESETS } from './provider-registry.js';
export type { ProxyEnvironment } from './shared/http-proxy.js';
export { createDispatcherFetch, createProxyDispatcher } from './shared/http-proxy.js';
export type { HttpProviderSettings } from './shared/http-settings.js';
export { errorTypeToken } from './shared/provider-error.js';
