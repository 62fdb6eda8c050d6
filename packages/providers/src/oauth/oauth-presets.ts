import { HalError } from '@hal-ai/spec';
import { checkEndpoint } from './oauth-endpoint.js';
import { OPENROUTER_AUTHORIZE_URL, OPENROUTER_KEYS_URL } from './oauth-openrouter.js';
import type { OAuthClientAuthMethod } from './oauth-tokens.js';

/** A standard authorization-code + PKCE provider (Google, or an operator's own gateway). */
export interface AuthorizationCodePreset {
  kind: 'authorization-code';
  authorizeUrl: string;
  tokenUrl: string;
  /** Checked against `iss` if an ID token comes back. */
  issuer?: string;
  scopes: readonly string[];
  extraParams?: Readonly<Record<string, string>>;
  clientAuthMethod: OAuthClientAuthMethod;
  /** The operator registers an OAuth client and enters its id and secret. */
  needsClient: true;
  /** Setup guide shown on the connections screen. */
  guide: string;
}

/** OpenRouter's PKCE key issuance: no client to register, the result is an API key. */
export interface OpenRouterPreset {
  kind: 'openrouter-pkce';
  authorizeUrl: string;
  keysUrl: string;
  needsClient: false;
  guide: string;
}

/** Any built-in or custom OAuth preset. */
export type OAuthPreset = AuthorizationCodePreset | OpenRouterPreset;

/** The scopes Google's Gemini OAuth quickstart grants (`gcloud auth application-default login --scopes=…`). */
export const GOOGLE_GEMINI_SCOPES: readonly string[] = [
  'https://www.googleapis.com/auth/cloud-platform',
  'https://www.googleapis.com/auth/generative-language.retriever',
];

/**
 * Built-in OAuth presets. There is deliberately no Claude.ai preset: Anthropic does not allow
 * third-party products to log in with Claude.ai subscription credentials. For Anthropic use an API
 * key, an operator-supplied OAuth gateway ({@link defineCustomOAuthPreset}), or the official `claude`
 * CLI logged in on the server (`@hal-ai/providers/cli`).
 */
export const OAUTH_PRESETS = {
  openrouter: {
    kind: 'openrouter-pkce',
    authorizeUrl: OPENROUTER_AUTHORIZE_URL,
    keysUrl: OPENROUTER_KEYS_URL,
    needsClient: false,
    guide:
      'Nothing to register: HAL opens OpenRouter, you log in and approve, and OpenRouter issues an API key that HAL keeps in its vault.',
  },
  google: {
    kind: 'authorization-code',
    authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    issuer: 'https://accounts.google.com',
    scopes: GOOGLE_GEMINI_SCOPES,
    // Without offline access and a consent prompt Google returns no refresh token.
    extraParams: { access_type: 'offline', prompt: 'consent' },
    clientAuthMethod: 'client_secret_post',
    needsClient: true,
    guide:
      'In Google Cloud: enable the Generative Language API, configure the OAuth consent screen, create an OAuth client of type "Web application" with HAL\'s callback URL as the redirect URI, and enter its client id and secret.',
  },
} as const satisfies Record<string, OAuthPreset>;

/** Settings of {@link defineCustomOAuthPreset}: an operator-supplied OAuth client. */
export interface CustomOAuthPresetSettings {
  authorizeUrl: string;
  tokenUrl: string;
  scopes?: readonly string[];
  issuer?: string;
  extraParams?: Record<string, string>;
  clientAuthMethod?: OAuthClientAuthMethod;
  allowInsecureRequests?: boolean;
}

/**
 * The "custom" shape: an operator-supplied authorization server (e.g. an enterprise gateway in front
 * of Anthropic or OpenAI). Endpoints must be HTTPS. The client id and secret travel separately
 * (the secret lives in the vault).
 */
export function defineCustomOAuthPreset(settings: CustomOAuthPresetSettings): AuthorizationCodePreset {
  const authorizeUrl = checkEndpoint('authorizeUrl', settings.authorizeUrl, settings.allowInsecureRequests);
  const tokenUrl = checkEndpoint('tokenUrl', settings.tokenUrl, settings.allowInsecureRequests);
  if (settings.scopes?.some((scope) => /\s/.test(scope) || scope === '')) {
    throw new HalError('validation_failed', 'Each scope must be a single non-empty word');
  }
  return {
    kind: 'authorization-code',
    authorizeUrl: authorizeUrl.toString(),
    tokenUrl: tokenUrl.toString(),
    ...(settings.issuer ? { issuer: settings.issuer } : {}),
    scopes: [...(settings.scopes ?? [])],
    ...(settings.extraParams ? { extraParams: { ...settings.extraParams } } : {}),
    clientAuthMethod: settings.clientAuthMethod ?? 'client_secret_post',
    needsClient: true,
    guide:
      "Register HAL as a client of your authorization server with HAL's callback URL as the redirect URI.",
  };
}
