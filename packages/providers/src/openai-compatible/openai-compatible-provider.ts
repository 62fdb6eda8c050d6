import { HalError, type ModelInfo, type ModelProvider } from '@hal-ai/spec';
import { getProviderJson } from '../shared/http-client.js';
import { definedHeaders, type HttpProviderSettings, joinUrl } from '../shared/http-settings.js';
import { badResponse } from '../shared/provider-error.js';
import {
  OpenAICompatibleLanguageModel,
  type OpenAICompatibleModelConfig,
} from './openai-compatible-language-model.js';

/** OpenAI's base URL; OpenAI-compatible base URLs include the version path. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** OpenRouter's OpenAI-compatible base URL. */
export const OPENROUTER_DEFAULT_BASE_URL = 'https://openrouter.ai/api/v1';

/** Settings of {@link createOpenAICompatible}. */
export interface OpenAICompatibleProviderSettings extends HttpProviderSettings {
  /** The provider id the models report (`openai`, `openrouter`, `other`…). Default `other`. */
  provider?: string;
  /** Sent as `Authorization: Bearer`. */
  apiKey?: string;
  /** Which field carries `maxOutputTokens`. Default `max_tokens`. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
}

/**
 * Creates a provider for any OpenAI-compatible Chat Completions service. The base URL is required and includes the
 * version path (e.g. `https://llm.example.com/v1`); without one it throws `validation_failed`.
 *
 * @example
 * const local = createOpenAICompatible({ baseUrl: 'http://127.0.0.1:8080/v1', apiKey });
 */
export function createOpenAICompatible(settings: OpenAICompatibleProviderSettings): ModelProvider {
  const provider = settings.provider ?? 'other';
  const baseUrl = settings.baseUrl?.trim();
  if (!baseUrl) {
    throw new HalError(
      'validation_failed',
      `${provider}: a base URL is required for an OpenAI-compatible service`,
      {
        details: { field: 'baseUrl' },
      },
    );
  }
  const headers = () =>
    definedHeaders(
      { authorization: settings.apiKey ? `Bearer ${settings.apiKey}` : undefined },
      settings.headers,
    );
  const config: OpenAICompatibleModelConfig = {
    provider,
    baseUrl,
    headers,
    settings,
    maxTokensField: settings.maxTokensField ?? 'max_tokens',
  };
  return {
    provider,
    languageModel: (modelId) => new OpenAICompatibleLanguageModel(modelId, config),
    async listModels(options = {}) {
      const url = joinUrl(baseUrl, '/models');
      const json = (await getProviderJson(provider, url, headers(), settings, options.abortSignal)) as {
        data?: Array<{ id?: string; name?: string; context_length?: number }>;
      };
      if (!Array.isArray(json?.data)) throw badResponse(provider, 'the model list has no data');
      return json.data.flatMap((model): ModelInfo[] =>
        typeof model.id === 'string'
          ? [
              {
                id: model.id,
                ...(model.name ? { displayName: model.name } : {}),
                ...(typeof model.context_length === 'number' ? { contextWindow: model.context_length } : {}),
              },
            ]
          : [],
      );
    },
  };
}

/** Settings of {@link createOpenAI}. */
export type OpenAIProviderSettings = Omit<OpenAICompatibleProviderSettings, 'provider'>;

/**
 * Creates the OpenAI provider (Chat Completions at `https://api.openai.com/v1` unless `baseUrl` says otherwise).
 *
 * @example
 * const openai = createOpenAI({ apiKey });
 * const result = await openai.languageModel('gpt-4.1-mini').doGenerate({ prompt });
 */
export function createOpenAI(settings: OpenAIProviderSettings = {}): ModelProvider {
  return createOpenAICompatible({
    maxTokensField: 'max_completion_tokens',
    ...settings,
    provider: 'openai',
    baseUrl: settings.baseUrl ?? OPENAI_DEFAULT_BASE_URL,
  });
}

/** Settings of {@link createOpenRouter}. */
export interface OpenRouterProviderSettings extends OpenAIProviderSettings {
  /** Your site, sent as `HTTP-Referer` for OpenRouter's app attribution. */
  appUrl?: string;
  /** Your app's name, sent as `X-Title` for OpenRouter's app attribution. */
  appName?: string;
}

/**
 * Creates the OpenRouter provider (OpenAI-compatible at `https://openrouter.ai/api/v1`, with attribution headers).
 *
 * @example
 * const openrouter = createOpenRouter({ apiKey, appUrl: 'https://hal.example.com', appName: 'HAL AI' });
 */
export function createOpenRouter(settings: OpenRouterProviderSettings = {}): ModelProvider {
  const { appUrl, appName, ...rest } = settings;
  return createOpenAICompatible({
    ...rest,
    provider: 'openrouter',
    baseUrl: settings.baseUrl ?? OPENROUTER_DEFAULT_BASE_URL,
    headers: { 'HTTP-Referer': appUrl, 'X-Title': appName, ...settings.headers },
  });
}
