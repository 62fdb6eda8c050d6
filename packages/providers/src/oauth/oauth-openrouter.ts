import { HalError } from '@hal-ai/spec';
import { errorTypeToken } from '../shared/provider-error.js';
import { checkEndpoint, type OAuthFetch } from './oauth-endpoint.js';

/** Settings of {@link buildOpenRouterAuthorizationUrl}. */
export interface OpenRouterAuthorizationSettings {
  /** Where OpenRouter sends the browser back with `?code=…` (HAL's OAuth callback, with its `state`). */
  callbackUrl: string;
  codeChallenge: string;
  /** Default `https://openrouter.ai/auth`. */
  authorizeUrl?: string;
  allowInsecureRequests?: boolean;
}

/** Settings of {@link exchangeOpenRouterCode}. */
export interface OpenRouterExchangeSettings {
  code: string;
  codeVerifier: string;
  /** Default `https://openrouter.ai/api/v1/auth/keys`. */
  keysUrl?: string;
  fetch?: OAuthFetch;
  allowInsecureRequests?: boolean;
  abortSignal?: AbortSignal;
}

/** An API key OpenRouter issued to the operator through PKCE. */
export interface OpenRouterIssuedKey {
  key: string;
  userId?: string;
}

/** OpenRouter's public endpoints for PKCE key issuance (overridable per connection). */
export const OPENROUTER_AUTHORIZE_URL = 'https://openrouter.ai/auth';
/** @see OPENROUTER_AUTHORIZE_URL */
export const OPENROUTER_KEYS_URL = 'https://openrouter.ai/api/v1/auth/keys';

/**
 * The OpenRouter login URL: `…/auth?callback_url=…&code_challenge=…&code_challenge_method=S256`.
 * OpenRouter needs no registered client: it issues an ordinary API key to the logged-in user.
 */
export function buildOpenRouterAuthorizationUrl(settings: OpenRouterAuthorizationSettings): string {
  const url = checkEndpoint(
    'authorizeUrl',
    settings.authorizeUrl ?? OPENROUTER_AUTHORIZE_URL,
    settings.allowInsecureRequests,
  );
  if (!settings.callbackUrl) throw new HalError('validation_failed', 'callbackUrl is required');
  if (!settings.codeChallenge) throw new HalError('validation_failed', 'codeChallenge is required');
  url.searchParams.set('callback_url', settings.callbackUrl);
  url.searchParams.set('code_challenge', settings.codeChallenge);
  url.searchParams.set('code_challenge_method', 'S256');
  return url.toString();
}

/**
 * Exchanges OpenRouter's `code` for an API key: `POST /api/v1/auth/keys {code, code_verifier,
 * code_challenge_method: "S256"}` → `{key}`. The key is a secret: store it in the vault.
 */
export async function exchangeOpenRouterCode(
  settings: OpenRouterExchangeSettings,
): Promise<OpenRouterIssuedKey> {
  const url = checkEndpoint(
    'keysUrl',
    settings.keysUrl ?? OPENROUTER_KEYS_URL,
    settings.allowInsecureRequests,
  );
  if (!settings.code || !settings.codeVerifier) {
    throw new HalError('validation_failed', 'code and codeVerifier are required');
  }
  const doFetch: OAuthFetch = settings.fetch ?? ((input, init) => fetch(input, init));
  let response: Response;
  try {
    response = await doFetch(url.toString(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        code: settings.code,
        code_verifier: settings.codeVerifier,
        code_challenge_method: 'S256',
      }),
      signal: settings.abortSignal,
    });
  } catch {
    // A fixed sentence, without the socket's words or address: `keysUrl` can point anywhere.
    throw new HalError('provider_unavailable', 'OpenRouter could not be reached for the key exchange', {
      details: { cause: 'unreachable' },
    });
  }
  const text = await response.text().catch(() => '');
  let body: { key?: unknown; user_id?: unknown; error?: { code?: unknown; type?: unknown } | string } = {};
  try {
    body = JSON.parse(text);
  } catch {
    // Non-JSON answers are judged by their status below.
  }
  if (!response.ok) {
    // The status and an identifier-shaped error code only: `error.message` is the far side's free text (an
    // internal page's words when `keysUrl` was pointed at one), and it would reach the operator's screen.
    const error = typeof body.error === 'object' && body.error !== null ? body.error : undefined;
    const raw = typeof body.error === 'string' ? body.error : (error?.code ?? error?.type);
    const type = errorTypeToken(typeof raw === 'string' ? raw : undefined);
    const code = response.status >= 500 ? 'provider_unavailable' : 'provider_auth';
    throw new HalError(
      code,
      `OpenRouter refused the key exchange (HTTP ${response.status}${type ? ` ${type}` : ''})`,
      { details: { status: response.status, ...(type ? { type } : {}) } },
    );
  }
  if (typeof body.key !== 'string' || !body.key) {
    throw new HalError('provider_bad_response', 'OpenRouter answered the key exchange without a key');
  }
  return { key: body.key, ...(typeof body.user_id === 'string' ? { userId: body.user_id } : {}) };
}
