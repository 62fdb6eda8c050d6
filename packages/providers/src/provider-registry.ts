import { HalError, type ModelInfo, type ModelProvider } from '@hal-ai/spec';
import {
  ANTHROPIC_DEFAULT_BASE_URL,
  type AnthropicProviderSettings,
  createAnthropic,
} from './anthropic/anthropic-provider.js';
import {
  createGemini,
  GEMINI_DEFAULT_BASE_URL,
  type GeminiProviderSettings,
} from './gemini/gemini-provider.js';
import {
  createOpenAI,
  createOpenAICompatible,
  createOpenRouter,
  OPENAI_DEFAULT_BASE_URL,
  OPENROUTER_DEFAULT_BASE_URL,
  type OpenAICompatibleProviderSettings,
  type OpenRouterProviderSettings,
} from './openai-compatible/openai-compatible-provider.js';

/** The HTTP providers {@link createProvider} builds. */
export type HttpProviderId = 'anthropic' | 'openai' | 'openrouter' | 'other' | 'gemini';

/** Settings of {@link createProvider}: the provider id plus that provider's settings. */
export type CreateProviderSettings =
  | ({ provider: 'anthropic' } & AnthropicProviderSettings)
  | ({ provider: 'openai' } & Omit<OpenAICompatibleProviderSettings, 'provider'>)
  | ({ provider: 'openrouter' } & OpenRouterProviderSettings)
  | ({ provider: 'other' } & Omit<OpenAICompatibleProviderSettings, 'provider'>)
  | ({ provider: 'gemini' } & GeminiProviderSettings);

/**
 * Builds the provider a connection names. `other` needs a base URL (`validation_failed` without one).
 *
 * @example
 * const provider = createProvider({ provider: connection.provider, apiKey, baseUrl: connection.baseUrl ?? undefined });
 * const models = await provider.listModels();
 */
export function createProvider(settings: CreateProviderSettings): ModelProvider {
  switch (settings.provider) {
    case 'anthropic': {
      const { provider: _, ...rest } = settings;
      return createAnthropic(rest);
    }
    case 'openai': {
      const { provider: _, ...rest } = settings;
      return createOpenAI(rest);
    }
    case 'openrouter': {
      const { provider: _, ...rest } = settings;
      return createOpenRouter(rest);
    }
    case 'other': {
      const { provider: _, ...rest } = settings;
      return createOpenAICompatible({ ...rest, provider: 'other' });
    }
    case 'gemini': {
      const { provider: _, ...rest } = settings;
      return createGemini(rest);
    }
    default:
      throw new HalError(
        'validation_failed',
        `Unknown provider "${(settings as { provider: string }).provider}"`,
        {
          details: { field: 'provider' },
        },
      );
  }
}

/**
 * Refuses a model the provider's list does not offer (`model_unavailable`) — never silently replaced.
 *
 * @example
 * checkModelAvailable(await provider.listModels(), 'claude-sonnet-4-5');
 */
export function checkModelAvailable(models: ReadonlyArray<ModelInfo | string>, modelId: string): void {
  const ids = models.map((model) => (typeof model === 'string' ? model : model.id));
  if (!ids.includes(modelId)) {
    throw new HalError('model_unavailable', `Model "${modelId}" is not offered by this connection`, {
      details: { model: modelId, available: ids.slice(0, 50) },
    });
  }
}

/** One provider as the connections screen offers it. */
export interface ProviderPreset {
  id: HttpProviderId;
  label: string;
  /** The default base URL; `null` where the operator must give one. */
  defaultBaseUrl: string | null;
  baseUrlRequired: boolean;
  authMethods: ReadonlyArray<'api_key' | 'oauth'>;
  /** Short setup guide: where to get a key, what OAuth needs. */
  guide: { apiKey: string; oauth?: string };
}

/** The HTTP providers, in the order the connections screen lists them, with setup guides. */
export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  {
    id: 'anthropic',
    label: 'Anthropic (Claude)',
    defaultBaseUrl: ANTHROPIC_DEFAULT_BASE_URL,
    baseUrlRequired: false,
    authMethods: ['api_key', 'oauth'],
    guide: {
      apiKey: 'Create a key in the Anthropic Console (console.anthropic.com → Settings → API keys).',
      oauth:
        'Anthropic does not let third-party products sign in with Claude.ai accounts. OAuth here means your own ' +
        'gateway: give its authorize and token endpoints, client id/secret and scopes; HAL sends the token as Bearer. ' +
        'To use a Claude subscription, connect the official claude CLI instead.',
    },
  },
  {
    id: 'openai',
    label: 'OpenAI',
    defaultBaseUrl: OPENAI_DEFAULT_BASE_URL,
    baseUrlRequired: false,
    authMethods: ['api_key', 'oauth'],
    guide: {
      apiKey:
        'Create a key at platform.openai.com → API keys. The base URL may point at a compatible proxy (…/v1).',
      oauth:
        'Only through an operator-supplied OAuth client (e.g. an enterprise gateway in front of OpenAI).',
    },
  },
  {
    id: 'openrouter',
    label: 'OpenRouter',
    defaultBaseUrl: OPENROUTER_DEFAULT_BASE_URL,
    baseUrlRequired: false,
    authMethods: ['api_key', 'oauth'],
    guide: {
      apiKey: 'Create a key at openrouter.ai → Keys.',
      oauth:
        'Sign in with OpenRouter (PKCE): no client registration needed; OpenRouter issues a key for HAL.',
    },
  },
  {
    id: 'gemini',
    label: 'Google Gemini',
    defaultBaseUrl: GEMINI_DEFAULT_BASE_URL,
    baseUrlRequired: false,
    authMethods: ['api_key', 'oauth'],
    guide: {
      apiKey: 'Create a key in Google AI Studio (aistudio.google.com → Get API key).',
      oauth:
        'Create an OAuth client (Web application) in Google Cloud Console with the Generative Language API ' +
        'enabled, add HAL’s callback URL as a redirect URI, and enter its client id and secret.',
    },
  },
  {
    id: 'other',
    label: 'Other OpenAI-compatible service',
    defaultBaseUrl: null,
    baseUrlRequired: true,
    authMethods: ['api_key', 'oauth'],
    guide: {
      apiKey:
        'Enter the service’s base URL including the version path (e.g. http://127.0.0.1:8000/v1) and its key, ' +
        'if it needs one.',
      oauth: 'Give the service’s OAuth client: authorize and token endpoints, client id/secret and scopes.',
    },
  },
];
