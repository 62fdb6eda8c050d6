import type { ModelInfo, ModelProvider } from '@hal-ai/spec';
import { collectPages, getProviderJson } from '../shared/http-client.js';
import { definedHeaders, type HttpProviderSettings, joinUrl } from '../shared/http-settings.js';
import { badResponse } from '../shared/provider-error.js';
import { GeminiLanguageModel } from './gemini-language-model.js';

/** The Gemini API origin (the adapter appends `/v1beta/...`). */
export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';

/** Settings of {@link createGemini}. */
export interface GeminiProviderSettings extends HttpProviderSettings {
  /** An API key, sent as `x-goog-api-key`. */
  apiKey?: string;
  /** An OAuth access token, sent as `Authorization: Bearer`. */
  authToken?: string;
  /** Makes ids for Gemini's function calls, which have none. Default a random prefix plus a counter. */
  generateId?: () => string;
}

function defaultIdGenerator(): () => string {
  const prefix = globalThis.crypto.randomUUID().slice(0, 8);
  let counter = 0;
  return () => {
    counter += 1;
    return `gemini-call-${prefix}-${counter}`;
  };
}

/**
 * Creates the Google Gemini provider (`generateContent`, `functionDeclarations`).
 *
 * @example
 * const gemini = createGemini({ apiKey });
 * const { stream } = await gemini.languageModel('gemini-2.5-flash').doStream({ prompt });
 */
export function createGemini(settings: GeminiProviderSettings = {}): ModelProvider {
  const baseUrl = settings.baseUrl ?? GEMINI_DEFAULT_BASE_URL;
  const generateId = settings.generateId ?? defaultIdGenerator();
  const headers = () =>
    definedHeaders(
      {
        'x-goog-api-key': settings.apiKey,
        authorization: settings.authToken ? `Bearer ${settings.authToken}` : undefined,
      },
      settings.headers,
    );
  return {
    provider: 'gemini',
    languageModel: (modelId) =>
      new GeminiLanguageModel(modelId.replace(/^models\//, ''), { baseUrl, headers, settings, generateId }),
    listModels: (options = {}) =>
      collectPages<ModelInfo>(async (pageToken) => {
        const query = new URLSearchParams({ pageSize: '1000', ...(pageToken ? { pageToken } : {}) });
        const url = `${joinUrl(baseUrl, '/v1beta/models')}?${query}`;
        const json = (await getProviderJson('gemini', url, headers(), settings, options.abortSignal)) as {
          models?: Array<{
            name?: string;
            displayName?: string;
            inputTokenLimit?: number;
            supportedGenerationMethods?: string[];
          }>;
          nextPageToken?: string;
        };
        if (!json || typeof json !== 'object') throw badResponse('gemini', 'the model list is not an object');
        const models: ModelInfo[] = [];
        for (const model of json.models ?? []) {
          if (typeof model.name !== 'string') continue;
          // Embedding-only and other models that cannot chat are not offered.
          if (
            model.supportedGenerationMethods &&
            !model.supportedGenerationMethods.includes('generateContent')
          )
            continue;
          models.push({
            id: model.name.replace(/^models\//, ''),
            ...(model.displayName ? { displayName: model.displayName } : {}),
            ...(typeof model.inputTokenLimit === 'number' ? { contextWindow: model.inputTokenLimit } : {}),
          });
        }
        return { items: models, next: json.nextPageToken || undefined };
      }),
  };
}
