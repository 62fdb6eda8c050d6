import { describe, expect, it } from 'vitest';
import { buildAuthorizationUrl } from './oauth-authorization.js';
import { buildOpenRouterAuthorizationUrl } from './oauth-openrouter.js';
import { calculateCodeChallenge, createOAuthState, createPkcePair } from './oauth-pkce.js';
import { defineCustomOAuthPreset, OAUTH_PRESETS } from './oauth-presets.js';

describe('PKCE', () => {
  it('matches the RFC 7636 appendix B vector', async () => {
    // RFC 7636 appendix B: verifier → BASE64URL(SHA256(verifier)).
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    expect(await calculateCodeChallenge(verifier)).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(await createPkcePair({ codeVerifier: verifier })).toEqual({
      codeVerifier: verifier,
      codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      codeChallengeMethod: 'S256',
    });
  });

  it('creates fresh, RFC-shaped verifiers and states', async () => {
    const first = await createPkcePair();
    const second = await createPkcePair();
    expect(first.codeVerifier).not.toBe(second.codeVerifier);
    expect(first.codeVerifier).toMatch(/^[A-Za-z0-9\-._~]{43,128}$/);
    expect(first.codeChallenge).toBe(await calculateCodeChallenge(first.codeVerifier));
    expect(createOAuthState()).not.toBe(createOAuthState());
  });
});

describe('buildAuthorizationUrl', () => {
  it('sets the protocol parameters; extra parameters cannot override them', () => {
    const url = new URL(
      buildAuthorizationUrl({
        authorizeUrl: `${OAUTH_PRESETS.google.authorizeUrl}?hd=example.com`,
        clientId: 'client-1',
        redirectUri: 'https://hal.example/ops/ai/oauth/callback',
        scopes: OAUTH_PRESETS.google.scopes,
        state: 'state-1',
        codeChallenge: 'challenge-1',
        extraParams: {
          ...OAUTH_PRESETS.google.extraParams,
          state: 'attacker',
          redirect_uri: 'https://evil.example',
        },
      }),
    );
    expect(url.origin + url.pathname).toBe('https://accounts.google.com/o/oauth2/v2/auth');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      hd: 'example.com',
      access_type: 'offline',
      prompt: 'consent',
      response_type: 'code',
      client_id: 'client-1',
      redirect_uri: 'https://hal.example/ops/ai/oauth/callback',
      scope:
        'https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/generative-language.retriever',
      state: 'state-1',
      code_challenge: 'challenge-1',
      code_challenge_method: 'S256',
    });
  });

  it('refuses plain HTTP except loopback when explicitly allowed', () => {
    const base = { clientId: 'c', redirectUri: 'http://127.0.0.1/cb', state: 's', codeChallenge: 'x' };
    expect(() => buildAuthorizationUrl({ ...base, authorizeUrl: 'http://auth.example/authorize' })).toThrow(
      /HTTPS/,
    );
    expect(() =>
      buildAuthorizationUrl({
        ...base,
        authorizeUrl: 'http://auth.example/authorize',
        allowInsecureRequests: true,
      }),
    ).toThrow(/HTTPS/);
    expect(
      buildAuthorizationUrl({
        ...base,
        authorizeUrl: 'http://127.0.0.1:9/authorize',
        allowInsecureRequests: true,
      }),
    ).toContain('http://127.0.0.1:9/authorize?');
  });

  it('builds the OpenRouter login URL', () => {
    const url = new URL(
      buildOpenRouterAuthorizationUrl({
        callbackUrl: 'https://hal.example/cb?state=s1',
        codeChallenge: 'ch',
      }),
    );
    expect(url.origin + url.pathname).toBe('https://openrouter.ai/auth');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      callback_url: 'https://hal.example/cb?state=s1',
      code_challenge: 'ch',
      code_challenge_method: 'S256',
    });
  });

  it('validates a custom (operator-supplied) preset', () => {
    const preset = defineCustomOAuthPreset({
      authorizeUrl: 'https://gateway.example/oauth/authorize',
      tokenUrl: 'https://gateway.example/oauth/token',
      scopes: ['models.read'],
    });
    expect(preset).toMatchObject({ kind: 'authorization-code', needsClient: true, scopes: ['models.read'] });
    expect(() =>
      defineCustomOAuthPreset({ authorizeUrl: 'http://gateway.example/a', tokenUrl: 'https://x/t' }),
    ).toThrow(/HTTPS/);
    expect(Object.keys(OAUTH_PRESETS)).toEqual(['openrouter', 'google']);
  });
});
