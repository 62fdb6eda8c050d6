import type { ModelInfo, ModelProvider } from '@hal-ai/spec';
import { collectPages, getProviderJson } from '../shared/http-client.js';
import { definedHeaders, type HttpProviderSettings, joinUrl } from '../shared/http-settings.js';
import { badResponse } from '../shared/provider-error.js';
import { AnthropicLanguageModel } from './anthropic-language-model.js';

/** The Anthropic API origin (the adapter appends `/v1/...`). */
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

/** Settings of {@link createAnthropic}. */
export interface AnthropicProviderSettings extends HttpProviderSettings {
  /** An API key, sent as `x-api-key`. */
  apiKey?: string;
  /** An OAuth or gateway token, sent as `Authorization: Bearer`. */
  authToken?: string;
  /** `max_tokens` when a call sets none (the API requires one). Default 4096. */
  defaultMaxOutputTokens?: number;
}

/**
 * Creates the Anthropic Messages API provider.
 *
 * @example
 * const anthropic = createAnthropic({ apiKey });
 * const { stream } = await anthropic.languageModel('claude-sonnet-4-5').doStream({ prompt });
 */
export function createAnthropic(settings: AnthropicProviderSettings = {}): ModelProvider {
  const baseUrl = settings.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL;
  const headers = () =>
    definedHeaders(
      {
        'anthropic-version': '2023-06-01',
        'x-api-key': settings.apiKey,
        authorization: settings.authToken ? `Bearer ${settings.authToken}` : undefined,
      },
      settings.headers,
    );
  return {
    provider: 'anthropic',
    languageModel: (modelId) =>
      new AnthropicLanguageModel(modelId, {
        baseUrl,
        headers,
        settings,
        defaultMaxOutputTokens: settings.defaultMaxOutputTokens ?? 4096,
      }),
    listModels: (options = {}) =>
      collectPages<ModelInfo>(async (afterId) => {
        const query = new URLSearchParams({ limit: '1000', ...(afterId ? { after_id: afterId } : {}) });
        const url = `${joinUrl(baseUrl, '/v1/models')}?${query}`;
        const json = (await getProviderJson('anthropic', url, headers(), settings, options.abortSignal)) as {
          data?: Array<{ id?: string; display_name?: string }>;
          has_more?: boolean;
          last_id?: string | null;
        };
        if (!Array.isArray(json?.data)) throw badResponse('anthropic', 'the model list has no data');
        return {
          items: json.data.flatMap((model) =>
            typeof model.id === 'string'
              ? [{ id: model.id, ...(model.display_name ? { displayName: model.display_name } : {}) }]
              : [],
          ),
          next: json.has_more && json.last_id ? json.last_id : undefined,
        };
      }),
  };
}
