import { HalError, type HalErrorCode } from '@hal-ai/spec';
import * as oauth from 'oauth4webapi';
import { errorTypeToken } from '../shared/provider-error.js';
import { checkEndpoint, type OAuthFetch } from './oauth-endpoint.js';

/** Tokens of an OAuth connection, as HAL stores them in the vault. */
export interface OAuthTokens {
  accessToken: string;
  refreshToken?: string;
  /** ISO 8601 time the access token expires, when the server said (`expires_in`). */
  expiresAt?: string;
  /** The granted scopes, space-separated, when the server said. */
  scope?: string;
  tokenType?: string;
}

/** How the client authenticates at the token endpoint when it has a secret. */
export type OAuthClientAuthMethod = 'client_secret_post' | 'client_secret_basic';

/** The token endpoint and client of an OAuth provider. */
export interface OAuthTokenEndpointSettings {
  tokenUrl: string;
  clientId: string;
  /** Sent only to the token endpoint; absent → a public client (PKCE only). */
  clientSecret?: string;
  /** Default `client_secret_post`. */
  clientAuthMethod?: OAuthClientAuthMethod;
  /** The issuer, checked against an ID token's `iss` if one comes back. Default: the token URL's origin. */
  issuer?: string;
  /** Replaces `fetch` (oauth4webapi's `customFetch`). */
  fetch?: OAuthFetch;
  /** Accept `http://127.0.0.1…` endpoints (tests only; refused for any other host). */
  allowInsecureRequests?: boolean;
  abortSignal?: AbortSignal;
  /** The time source for `expiresAt`. Default `Date.now`. */
  clock?: { now(): number };
}

/** Settings of {@link exchangeCode}. */
export interface ExchangeCodeSettings extends OAuthTokenEndpointSettings {
  code: string;
  codeVerifier: string;
  /** Exactly the redirect URI of the authorization request. */
  redirectUri: string;
}

/** Settings of {@link refreshTokens}. */
export interface RefreshTokensSettings extends OAuthTokenEndpointSettings {
  refreshToken: string;
  /** Ask for a narrower scope (space-joined); default: the original grant. */
  scopes?: readonly string[];
}

function prepare(settings: OAuthTokenEndpointSettings) {
  const tokenUrl = checkEndpoint('tokenUrl', settings.tokenUrl, settings.allowInsecureRequests);
  if (!settings.clientId) throw new HalError('validation_failed', 'clientId is required');
  const as: oauth.AuthorizationServer = {
    issuer: settings.issuer ?? tokenUrl.origin,
    token_endpoint: tokenUrl.toString(),
  };
  const client: oauth.Client = { client_id: settings.clientId };
  const clientAuth =
    settings.clientSecret === undefined || settings.clientSecret === ''
      ? oauth.None()
      : settings.clientAuthMethod === 'client_secret_basic'
        ? oauth.ClientSecretBasic(settings.clientSecret)
        : oauth.ClientSecretPost(settings.clientSecret);
  const options: oauth.TokenEndpointRequestOptions = {
    signal: settings.abortSignal,
    [oauth.allowInsecureRequests]: tokenUrl.protocol === 'http:',
  };
  if (settings.fetch) {
    const doFetch = settings.fetch;
    options[oauth.customFetch] = (url, init) => doFetch(url, init as RequestInit);
  }
  return { as, client, clientAuth, options };
}

function toTokens(response: oauth.TokenEndpointResponse, now: number): OAuthTokens {
  const tokens: OAuthTokens = { accessToken: response.access_token, tokenType: response.token_type };
  if (typeof response.refresh_token === 'string') tokens.refreshToken = response.refresh_token;
  if (typeof response.expires_in === 'number')
    tokens.expiresAt = new Date(now + response.expires_in * 1000).toISOString();
  if (typeof response.scope === 'string') tokens.scope = response.scope;
  return tokens;
}

/**
 * @internal Maps an oauth4webapi or network failure to a `HalError`. An `invalid_grant` answer to a
 * refresh means the grant is gone (revoked, expired, rotated away): only a new login helps, so it is
 * `reauth_required`. The message holds the HTTP status and the server's `error` code only when it is an
 * identifier (`invalid_grant`), never its `error_description` or any other text: the token URL of a custom
 * client can be any server, and its words would reach the operator's `lastError` and the login popup.
 */
export function mapOAuthError(error: unknown, during: 'exchange' | 'refresh'): HalError {
  if (HalError.isInstance(error)) return error;
  if (error instanceof oauth.ResponseBodyError || error instanceof oauth.WWWAuthenticateChallengeError) {
    const status = error.status;
    const oauthError =
      error instanceof oauth.ResponseBodyError
        ? errorTypeToken(typeof error.error === 'string' ? error.error : undefined)
        : challengeError(error);
    const details = { status, ...(oauthError ? { oauthError } : {}) };
    const said = `HTTP ${status}${oauthError ? ` ${oauthError}` : ''}`;
    // No `cause`: the library's error carries the server's body (error_description), which a log line would show.
    if (during === 'refresh' && oauthError === 'invalid_grant') {
      return new HalError('reauth_required', `The refresh token was refused (${said}); log in again`, {
        details,
      });
    }
    const code: HalErrorCode = status >= 500 ? 'provider_unavailable' : 'provider_auth';
    return new HalError(code, `The token endpoint refused the ${during} (${said})`, { details });
  }
  if (error instanceof oauth.OperationProcessingError) {
    const status = error.cause instanceof Response ? error.cause.status : undefined;
    const code: HalErrorCode =
      status !== undefined && status >= 500 ? 'provider_unavailable' : 'provider_bad_response';
    // The library's own words (which check failed), never the server's; its cause (the response) stays out.
    return new HalError(code, `Unexpected token endpoint response during ${during}: ${error.message}`, {
      ...(status !== undefined ? { details: { status } } : {}),
    });
  }
  if (error instanceof Error && error.name === 'AbortError') {
    return new HalError('provider_timeout', `The token ${during} was aborted`, { cause: error });
  }
  // A fixed sentence without the socket's words (`connect ECONNREFUSED 10.0.0.7:8443`): which addresses and
  // ports answer on HAL's network is not the token server's to learn through the operator's screen.
  return new HalError('provider_unavailable', `The token endpoint could not be reached during ${during}`, {
    details: { cause: 'unreachable' },
  });
}

/** The `error` parameter of a `WWW-Authenticate` challenge (RFC 6750 §3), when it is an identifier. */
function challengeError(error: oauth.WWWAuthenticateChallengeError): string | undefined {
  for (const challenge of error.cause) {
    const token = errorTypeToken(challenge.parameters.error);
    if (token) return token;
  }
  return undefined;
}

/**
 * Exchanges an authorization code for tokens (RFC 6749 §4.1.3 with the PKCE verifier). The client
 * secret, if any, goes only to the token endpoint. Rejects with a `HalError`.
 *
 * @example
 * const tokens = await exchangeCode({ tokenUrl, clientId, clientSecret, code, codeVerifier, redirectUri });
 */
export async function exchangeCode(settings: ExchangeCodeSettings): Promise<OAuthTokens> {
  const { as, client, clientAuth, options } = prepare(settings);
  if (!settings.code) throw new HalError('validation_failed', 'code is required');
  if (!settings.codeVerifier) throw new HalError('validation_failed', 'codeVerifier is required');
  try {
    // HAL checks `state` itself (hashed, single use, same operator) before calling this.
    const callback = oauth.validateAuthResponse(
      as,
      client,
      new URLSearchParams({ code: settings.code }),
      oauth.skipStateCheck,
    );
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      callback,
      settings.redirectUri,
      settings.codeVerifier,
      options,
    );
    const result = await oauth.processAuthorizationCodeResponse(as, client, response);
    return toTokens(result, (settings.clock ?? Date).now());
  } catch (error) {
    throw mapOAuthError(error, 'exchange');
  }
}

/**
 * Gets new tokens with a refresh token. A server that does not rotate refresh tokens returns none:
 * the old one is kept. `invalid_grant` → `HalError('reauth_required')`.
 */
export async function refreshTokens(settings: RefreshTokensSettings): Promise<OAuthTokens> {
  const { as, client, clientAuth, options } = prepare(settings);
  if (!settings.refreshToken)
    throw new HalError('reauth_required', 'There is no refresh token; log in again');
  if (settings.scopes?.length) options.additionalParameters = { scope: settings.scopes.join(' ') };
  try {
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client,
      clientAuth,
      settings.refreshToken,
      options,
    );
    const result = await oauth.processRefreshTokenResponse(as, client, response);
    const tokens = toTokens(result, (settings.clock ?? Date).now());
    tokens.refreshToken ??= settings.refreshToken;
    return tokens;
  } catch (error) {
    throw mapOAuthError(error, 'refresh');
  }
}
