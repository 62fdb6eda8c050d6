import { HalError } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import { GOOGLE_GEMINI_SCOPES, OAUTH_PRESETS } from '../oauth/oauth-presets.js';
import { defaultOAuthPreset, oauthSecretEndpoint, resolveOAuthClient } from './connection-oauth-client.js';

function issuePath(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (!HalError.isInstance(error)) throw error;
    expect(error.code).toBe('validation_failed');
    return (error.details as { issues: Array<{ path: string }> }).issues[0]?.path;
  }
  return undefined;
}

describe('defaultOAuthPreset', () => {
  it('names OpenRouter key issuance, Google for Gemini, and an operator client for the rest', () => {
    expect(defaultOAuthPreset('openrouter')).toBe('openrouter');
    expect(defaultOAuthPreset('gemini')).toBe('google');
    for (const provider of ['anthropic', 'openai', 'other'])
      expect(defaultOAuthPreset(provider)).toBe('custom');
  });
});

describe('resolveOAuthClient', () => {
  it('gives OpenRouter its public endpoints and no client; overrides point it elsewhere', () => {
    expect(resolveOAuthClient('openrouter')).toEqual({
      kind: 'openrouter',
      authorizeUrl: OAUTH_PRESETS.openrouter.authorizeUrl,
      keysUrl: OAUTH_PRESETS.openrouter.keysUrl,
    });
    expect(
      resolveOAuthClient('openrouter', {
        authorizeUrl: 'http://127.0.0.1:9/auth',
        keysUrl: 'http://127.0.0.1:9/keys',
      }),
    ).toEqual({
      kind: 'openrouter',
      authorizeUrl: 'http://127.0.0.1:9/auth',
      keysUrl: 'http://127.0.0.1:9/keys',
    });
  });

  it('fills Google’s endpoints, scopes and offline-access parameters around the operator’s client id', () => {
    const client = resolveOAuthClient('gemini', { clientId: 'hal-client' });
    expect(client).toEqual({
      kind: 'authorization-code',
      authorizeUrl: OAUTH_PRESETS.google.authorizeUrl,
      tokenUrl: OAUTH_PRESETS.google.tokenUrl,
      clientId: 'hal-client',
      scopes: GOOGLE_GEMINI_SCOPES,
      extraParams: { access_type: 'offline', prompt: 'consent' },
      clientAuthMethod: 'client_secret_post',
    });
    // Each override wins over the preset, the extra parameters stay.
    const overridden = resolveOAuthClient('gemini', {
      clientId: 'hal-client',
      tokenUrl: 'http://127.0.0.1:9/token',
      scopes: ['one'],
      clientAuthMethod: 'client_secret_basic',
    });
    expect(overridden).toMatchObject({
      tokenUrl: 'http://127.0.0.1:9/token',
      authorizeUrl: OAUTH_PRESETS.google.authorizeUrl,
      scopes: ['one'],
      clientAuthMethod: 'client_secret_basic',
      extraParams: { access_type: 'offline', prompt: 'consent' },
    });
  });

  it('takes an explicit preset over the provider’s default', () => {
    expect(resolveOAuthClient('other', { preset: 'openrouter' }).kind).toBe('openrouter');
    expect(resolveOAuthClient('anthropic', { preset: 'google', clientId: 'c' })).toMatchObject({
      tokenUrl: OAUTH_PRESETS.google.tokenUrl,
    });
    // A Gemini connection with its own gateway gets no Google parameters.
    const custom = resolveOAuthClient('gemini', {
      preset: 'custom',
      authorizeUrl: 'http://127.0.0.1:9/a',
      tokenUrl: 'http://127.0.0.1:9/t',
      clientId: 'c',
    });
    expect(custom).toEqual({
      kind: 'authorization-code',
      authorizeUrl: 'http://127.0.0.1:9/a',
      tokenUrl: 'http://127.0.0.1:9/t',
      clientId: 'c',
      scopes: [],
      clientAuthMethod: 'client_secret_post',
    });
  });

  it('names the first missing field of a custom client', () => {
    expect(issuePath(() => resolveOAuthClient('anthropic', {}))).toBe('oauth.authorizeUrl');
    expect(issuePath(() => resolveOAuthClient('anthropic', { authorizeUrl: 'http://127.0.0.1:9/a' }))).toBe(
      'oauth.tokenUrl',
    );
    expect(
      issuePath(() =>
        resolveOAuthClient('openai', {
          authorizeUrl: 'http://127.0.0.1:9/a',
          tokenUrl: 'http://127.0.0.1:9/t',
        }),
      ),
    ).toBe('oauth.clientId');
    expect(issuePath(() => resolveOAuthClient('gemini', {}))).toBe('oauth.clientId');
  });
});

describe('oauthSecretEndpoint', () => {
  it('is where the code and client secret go: the keys URL or the token URL', () => {
    expect(oauthSecretEndpoint(resolveOAuthClient('openrouter'))).toBe(OAUTH_PRESETS.openrouter.keysUrl);
    expect(oauthSecretEndpoint(resolveOAuthClient('gemini', { clientId: 'c' }))).toBe(
      OAUTH_PRESETS.google.tokenUrl,
    );
  });
});
