/**
 * OAuth for HAL connections: authorization code + PKCE S256 (oauth4webapi), refresh with single
 * flight, OpenRouter key issuance, and presets. Browser-safe (Web Crypto and `fetch` only).
 */
export type { AuthorizationUrlSettings } from './oauth-authorization.js';
export { buildAuthorizationUrl } from './oauth-authorization.js';
export type { OAuthFetch } from './oauth-endpoint.js';
export type {
  OpenRouterAuthorizationSettings,
  OpenRouterExchangeSettings,
  OpenRouterIssuedKey,
} from './oauth-openrouter.js';
export {
  buildOpenRouterAuthorizationUrl,
  exchangeOpenRouterCode,
  OPENROUTER_AUTHORIZE_URL,
  OPENROUTER_KEYS_URL,
} from './oauth-openrouter.js';
export type { PkcePair } from './oauth-pkce.js';
export { calculateCodeChallenge, createOAuthState, createPkcePair } from './oauth-pkce.js';
export type {
  AuthorizationCodePreset,
  CustomOAuthPresetSettings,
  OAuthPreset,
  OpenRouterPreset,
} from './oauth-presets.js';
export { defineCustomOAuthPreset, GOOGLE_GEMINI_SCOPES, OAUTH_PRESETS } from './oauth-presets.js';
export type { TokenRefresher, TokenRefresherSettings } from './oauth-refresher.js';
export { createTokenRefresher } from './oauth-refresher.js';
export type {
  ExchangeCodeSettings,
  OAuthClientAuthMethod,
  OAuthTokenEndpointSettings,
  OAuthTokens,
  RefreshTokensSettings,
} from './oauth-tokens.js';
export { exchangeCode, refreshTokens } from './oauth-tokens.js';
