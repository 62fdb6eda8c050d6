import { HalError } from '@hal-ai/spec';
import { OAUTH_PRESETS } from '../oauth/oauth-presets.js';
import type { OAuthClientAuthMethod } from '../oauth/oauth-tokens.js';

/** The OAuth presets a connection may name: OpenRouter key issuance, Google, or an operator's own client. */
export type ConnectionOAuthPresetId = 'openrouter' | 'google' | 'custom';

/**
 * A connection's own OAuth settings, as the operator gave them (none secret: the client secret lives in
 * the vault). Each field overrides the preset's value.
 */
export interface ConnectionOAuthOverrides {
  preset?: ConnectionOAuthPresetId;
  authorizeUrl?: string;
  tokenUrl?: string;
  /** OpenRouter only: where the code is exchanged for a key. */
  keysUrl?: string;
  clientId?: string;
  scopes?: readonly string[];
  clientAuthMethod?: OAuthClientAuthMethod;
}

/** OpenRouter's PKCE key issuance: no client; the code becomes an API key at `keysUrl`. */
export interface OpenRouterOAuthClient {
  kind: 'openrouter';
  authorizeUrl: string;
  keysUrl: string;
}

/** A standard authorization-code + PKCE client (Google, or an operator's gateway). */
export interface AuthorizationCodeOAuthClient {
  kind: 'authorization-code';
  authorizeUrl: string;
  tokenUrl: string;
  clientId: string;
  scopes: readonly string[];
  extraParams?: Readonly<Record<string, string>>;
  clientAuthMethod: OAuthClientAuthMethod;
}

/** The OAuth client a connection logs in with, every endpoint resolved. */
export type ConnectionOAuthClient = OpenRouterOAuthClient | AuthorizationCodeOAuthClient;

/**
 * The preset a provider uses when the operator names none: OpenRouter's key issuance for `openrouter`,
 * Google's for `gemini`, and an operator-supplied client for every other provider.
 *
 * @example
 * defaultOAuthPreset('gemini'); // 'google'
 */
export function defaultOAuthPreset(provider: string): ConnectionOAuthPresetId {
  if (provider === 'openrouter') return 'openrouter';
  if (provider === 'gemini') return 'google';
  return 'custom';
}

function missing(path: string): HalError {
  const message = 'required for this OAuth client';
  return new HalError('validation_failed', `${path}: ${message}`, {
    details: { issues: [{ path, message }] },
  });
}

/**
 * Resolves a connection's OAuth client from its preset and its own overrides. A custom client must
 * give its authorize and token endpoints and its client id; Google's endpoints, scopes and extra
 * parameters (offline access, consent prompt) come from the preset; OpenRouter needs no client.
 * Anything missing → `validation_failed` naming the field (`oauth.clientId`, …).
 *
 * @example
 * const client = resolveOAuthClient('gemini', { clientId: 'hal.apps.googleusercontent.com' });
 * // → { kind: 'authorization-code', tokenUrl: 'https://oauth2.googleapis.com/token', … }
 */
export function resolveOAuthClient(
  provider: string,
  overrides: ConnectionOAuthOverrides = {},
): ConnectionOAuthClient {
  const preset = overrides.preset ?? defaultOAuthPreset(provider);
  if (preset === 'openrouter') {
    return {
      kind: 'openrouter',
      authorizeUrl: overrides.authorizeUrl ?? OAUTH_PRESETS.openrouter.authorizeUrl,
      keysUrl: overrides.keysUrl ?? OAUTH_PRESETS.openrouter.keysUrl,
    };
  }
  const base = preset === 'google' ? OAUTH_PRESETS.google : undefined;
  const authorizeUrl = overrides.authorizeUrl ?? base?.authorizeUrl;
  const tokenUrl = overrides.tokenUrl ?? base?.tokenUrl;
  if (!authorizeUrl) throw missing('oauth.authorizeUrl');
  if (!tokenUrl) throw missing('oauth.tokenUrl');
  if (!overrides.clientId) throw missing('oauth.clientId');
  return {
    kind: 'authorization-code',
    authorizeUrl,
    tokenUrl,
    clientId: overrides.clientId,
    scopes: overrides.scopes ?? base?.scopes ?? [],
    ...(base?.extraParams ? { extraParams: base.extraParams } : {}),
    clientAuthMethod: overrides.clientAuthMethod ?? base?.clientAuthMethod ?? 'client_secret_post',
  };
}

/**
 * The endpoint a client's code and secret are sent to (OpenRouter's keys URL, else the token URL).
 * When it changes, a stored client secret must be given again and the old tokens are void.
 */
export function oauthSecretEndpoint(client: ConnectionOAuthClient): string {
  return client.kind === 'openrouter' ? client.keysUrl : client.tokenUrl;
}
