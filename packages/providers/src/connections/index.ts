/**
 * What a HAL connection means in provider terms, as pure functions: which OAuth client it logs in
 * with, how a token becomes credentials, what a CLI status or an auth failure means for its status,
 * and the providers the connections screen offers. Browser-safe.
 */
export type { ConnectionCredentials } from './connection-credentials.js';
export {
  canRefreshOAuthClient,
  credentialsFromOAuthToken,
  tokensFromOpenRouterKey,
} from './connection-credentials.js';
export type {
  AuthorizationCodeOAuthClient,
  ConnectionOAuthClient,
  ConnectionOAuthOverrides,
  ConnectionOAuthPresetId,
  OpenRouterOAuthClient,
} from './connection-oauth-client.js';
export { defaultOAuthPreset, oauthSecretEndpoint, resolveOAuthClient } from './connection-oauth-client.js';
export type { ConnectionProviderPreset } from './connection-presets.js';
export { CONNECTION_PROVIDER_PRESETS } from './connection-presets.js';
export type { ConnectionAuthMethod, ConnectionVerdict } from './connection-status.js';
export {
  connectionStatusAfterAuthFailure,
  connectionVerdictFromCli,
  isAuthFailure,
} from './connection-status.js';
