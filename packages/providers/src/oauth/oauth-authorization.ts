import { HalError } from '@hal-ai/spec';
import { checkEndpoint } from './oauth-endpoint.js';

/** Settings of {@link buildAuthorizationUrl}. */
export interface AuthorizationUrlSettings {
  /** The provider's authorization endpoint (overridable per connection). */
  authorizeUrl: string;
  clientId: string;
  /** The exact redirect URI registered with the provider; the code exchange must repeat it. */
  redirectUri: string;
  scopes?: readonly string[];
  state: string;
  /** The S256 challenge from `createPkcePair()`. */
  codeChallenge: string;
  /** Provider-specific parameters (e.g. Google's `access_type=offline`); they cannot override the ones above. */
  extraParams?: Record<string, string>;
  /** Accept `http://127.0.0.1…` endpoints (tests only). */
  allowInsecureRequests?: boolean;
}

/**
 * Builds the authorization-code + PKCE (S256) URL the operator's browser opens. Query parameters
 * already on `authorizeUrl` are kept; the protocol parameters are always set by this function.
 *
 * @example
 * const { codeVerifier, codeChallenge } = await createPkcePair();
 * const url = buildAuthorizationUrl({
 *   authorizeUrl: OAUTH_PRESETS.google.authorizeUrl, clientId, redirectUri, scopes: OAUTH_PRESETS.google.scopes,
 *   state, codeChallenge, extraParams: OAUTH_PRESETS.google.extraParams,
 * });
 */
export function buildAuthorizationUrl(settings: AuthorizationUrlSettings): string {
  const url = checkEndpoint('authorizeUrl', settings.authorizeUrl, settings.allowInsecureRequests);
  for (const [name, value] of [
    ['clientId', settings.clientId],
    ['redirectUri', settings.redirectUri],
    ['state', settings.state],
    ['codeChallenge', settings.codeChallenge],
  ] as const) {
    if (!value) throw new HalError('validation_failed', `${name} is required`);
  }
  for (const [name, value] of Object.entries(settings.extraParams ?? {})) url.searchParams.set(name, value);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', settings.clientId);
  url.searchParams.set('redirect_uri', settings.redirectUri);
  if (settings.scopes?.length) url.searchParams.set('scope', settings.scopes.join(' '));
  else url.searchParams.delete('scope');
  url.searchParams.set('state', settings.state);
  url.searchParams.set('code_challenge', settings.codeChallenge);
  url.searchParams.set('code_challenge_method', 'S256');
  return url.toString();
}
