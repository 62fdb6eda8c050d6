import type { OpenRouterIssuedKey } from '../oauth/oauth-openrouter.js';
import type { OAuthTokens } from '../oauth/oauth-tokens.js';
import type { HttpProviderId } from '../provider-registry.js';
import type { ConnectionOAuthClient } from './connection-oauth-client.js';

/** What a provider factory takes to authenticate: a key header, or `Authorization: Bearer`. */
export type ConnectionCredentials = { apiKey: string } | { authToken: string };

/**
 * How an OAuth access token authenticates a provider's calls. Anthropic (through an operator's
 * gateway) and Gemini (Google) take it as `Authorization: Bearer` beside their key headers, so it
 * goes in `authToken`; OpenAI-compatible services (OpenRouter's issued key included) send every
 * credential as Bearer already, so it goes in `apiKey`.
 *
 * @example
 * createProvider({ provider: 'gemini', ...credentialsFromOAuthToken('gemini', tokens.accessToken) });
 */
export function credentialsFromOAuthToken(
  provider: HttpProviderId,
  accessToken: string,
): ConnectionCredentials {
  return provider === 'anthropic' || provider === 'gemini'
    ? { authToken: accessToken }
    : { apiKey: accessToken };
}

/**
 * OpenRouter's PKCE login issues an API key, not a token: it is kept as the access token, with no
 * refresh token and no expiry (it lives until revoked).
 */
export function tokensFromOpenRouterKey(issued: OpenRouterIssuedKey): OAuthTokens {
  return { accessToken: issued.key };
}

/** Whether a client's tokens can be refreshed (an authorization-code client; never an issued key). */
export function canRefreshOAuthClient(client: ConnectionOAuthClient): boolean {
  return client.kind === 'authorization-code';
}
