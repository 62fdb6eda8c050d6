import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HalError } from '@hal-ai/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { rejection } from '../shared/provider-rejection.test-support.js';
import {
  createFakeAuthorizationServer,
  type FakeAuthorizationServer,
  followLogin,
} from '../testing/fake-oauth.js';
import { buildAuthorizationUrl } from './oauth-authorization.js';
import { buildOpenRouterAuthorizationUrl, exchangeOpenRouterCode } from './oauth-openrouter.js';
import { createOAuthState, createPkcePair } from './oauth-pkce.js';
import { createTokenRefresher } from './oauth-refresher.js';
import { exchangeCode, type OAuthTokens, refreshTokens } from './oauth-tokens.js';

let server: FakeAuthorizationServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const searchParamsOf = async (url: string) => (await followLogin(url)).searchParams;

async function login(fake: FakeAuthorizationServer, redirectUri = fake.redirectUri) {
  const pkce = await createPkcePair();
  const state = createOAuthState();
  const callback = await searchParamsOf(
    buildAuthorizationUrl({
      authorizeUrl: `${fake.url}/authorize`,
      clientId: fake.clientId,
      redirectUri,
      scopes: ['read', 'write'],
      state,
      codeChallenge: pkce.codeChallenge,
      allowInsecureRequests: true,
    }),
  );
  expect(callback.get('state')).toBe(state);
  return { code: callback.get('code') ?? '', codeVerifier: pkce.codeVerifier };
}

const endpoint = (fake: FakeAuthorizationServer) => ({
  tokenUrl: `${fake.url}/token`,
  clientId: fake.clientId,
  clientSecret: fake.clientSecret,
  allowInsecureRequests: true,
});

describe('exchangeCode against a fake authorization server', () => {
  it('exchanges a code with the PKCE verifier and the exact redirect URI (client_secret_post)', async () => {
    server = await createFakeAuthorizationServer();
    const { code, codeVerifier } = await login(server);
    const now = Date.parse('2030-01-01T00:00:00Z');
    const tokens = await exchangeCode({
      ...endpoint(server),
      code,
      codeVerifier,
      redirectUri: server.redirectUri,
      clock: { now: () => now },
    });
    expect(tokens.accessToken).toMatch(/^[\w-]{20,}$/);
    expect(tokens.refreshToken).toMatch(/^[\w-]{20,}$/);
    expect(tokens.expiresAt).toBe('2030-01-01T01:00:00.000Z');
    expect(tokens.scope).toBe('read write');
    expect(server.requests[0]?.fields).toMatchObject({
      grant_type: 'authorization_code',
      client_id: server.clientId,
      client_secret: server.clientSecret,
      redirect_uri: server.redirectUri,
      code_verifier: codeVerifier,
    });
  });

  it('authenticates with HTTP Basic when asked', async () => {
    server = await createFakeAuthorizationServer({ clientAuth: 'basic' });
    const { code, codeVerifier } = await login(server);
    const tokens = await exchangeCode({
      ...endpoint(server),
      clientAuthMethod: 'client_secret_basic',
      code,
      codeVerifier,
      redirectUri: server.redirectUri,
    });
    expect(tokens.accessToken).toBeTruthy();
  });

  it('a public client sends no secret', async () => {
    server = await createFakeAuthorizationServer({ clientSecret: null });
    const { code, codeVerifier } = await login(server);
    const tokens = await exchangeCode({
      ...endpoint(server),
      clientSecret: undefined,
      code,
      codeVerifier,
      redirectUri: server.redirectUri,
    });
    expect(tokens.accessToken).toBeTruthy();
  });

  it('a wrong verifier, a different redirect URI, a wrong secret or a reused code are refused', async () => {
    server = await createFakeAuthorizationServer();
    const first = await login(server);
    const otherVerifier = (await createPkcePair()).codeVerifier;
    const wrongVerifier = await rejection(
      exchangeCode({
        ...endpoint(server),
        code: first.code,
        codeVerifier: otherVerifier,
        redirectUri: server.redirectUri,
      }),
    );
    expect(wrongVerifier.code).toBe('provider_auth');
    expect(wrongVerifier.details.oauthError).toBe('invalid_grant');

    const second = await login(server);
    const wrongRedirect = await rejection(
      exchangeCode({ ...endpoint(server), ...second, redirectUri: `${server.redirectUri}/` }),
    );
    expect(wrongRedirect.details.oauthError).toBe('invalid_grant');

    const third = await login(server);
    const wrongSecret = await rejection(
      exchangeCode({
        ...endpoint(server),
        clientSecret: 'not-the-secret',
        ...third,
        redirectUri: server.redirectUri,
      }),
    );
    expect(wrongSecret.details.oauthError).toBe('invalid_client');
    expect(wrongSecret.message).not.toContain('not-the-secret');

    const fourth = await login(server);
    await exchangeCode({ ...endpoint(server), ...fourth, redirectUri: server.redirectUri });
    const reused = await rejection(
      exchangeCode({ ...endpoint(server), ...fourth, redirectUri: server.redirectUri }),
    );
    expect(reused.details.oauthError).toBe('invalid_grant');
  });

  it('refuses plain HTTP to a non-loopback token endpoint, even when insecure requests are allowed', async () => {
    const error = await rejection(
      exchangeCode({
        tokenUrl: 'http://auth.example/token',
        clientId: 'c',
        code: 'x',
        codeVerifier: 'y',
        redirectUri: 'https://hal.example/cb',
        allowInsecureRequests: true,
      }),
    );
    expect(error.code).toBe('validation_failed');
  });

  it('uses an injected fetch (customFetch)', async () => {
    server = await createFakeAuthorizationServer();
    const { code, codeVerifier } = await login(server);
    const seen: string[] = [];
    await exchangeCode({
      ...endpoint(server),
      code,
      codeVerifier,
      redirectUri: server.redirectUri,
      fetch: (url, init) => {
        seen.push(url);
        return fetch(url, init);
      },
    });
    expect(seen).toEqual([`${server.url}/token`]);
  });
});

describe('refresh', () => {
  it('refreshes and rotates the refresh token', async () => {
    server = await createFakeAuthorizationServer();
    const refreshToken = server.issueRefreshToken();
    const tokens = await refreshTokens({ ...endpoint(server), refreshToken });
    expect(tokens.accessToken).toBeTruthy();
    expect(tokens.refreshToken).not.toBe(refreshToken);
    expect(server.requests[0]?.fields).toMatchObject({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });
  });

  it('invalid_grant → reauth_required', async () => {
    server = await createFakeAuthorizationServer();
    const refreshToken = server.issueRefreshToken();
    server.revokeAll();
    const error = await rejection(refreshTokens({ ...endpoint(server), refreshToken }));
    expect(error.code).toBe('reauth_required');
    expect(error.status).toBe(401);
  });

  it('an unreachable token endpoint → provider_unavailable (not reauth)', async () => {
    server = await createFakeAuthorizationServer();
    const url = server.url;
    await server.close();
    server = undefined;
    const error = await rejection(
      refreshTokens({
        tokenUrl: `${url}/token`,
        clientId: 'c',
        refreshToken: 'r',
        allowInsecureRequests: true,
      }),
    );
    expect(error.code).toBe('provider_unavailable');
  });
});

describe('createTokenRefresher', () => {
  it('two concurrent refreshes make one upstream call and both get the same tokens', async () => {
    server = await createFakeAuthorizationServer();
    const fake = server;
    fake.delayMs = 200;
    const stored: OAuthTokens = {
      accessToken: 'old',
      refreshToken: fake.issueRefreshToken(),
      expiresAt: '2030-01-01T00:00:00.000Z',
    };
    const refresher = createTokenRefresher({
      refresh: (refreshToken) => refreshTokens({ ...endpoint(fake), refreshToken }),
      clock: { now: () => Date.parse('2030-01-01T00:00:30Z') },
    });
    expect(refresher.isExpiring(stored)).toBe(true);
    const [first, second] = await Promise.all([
      refresher.getFreshTokens(stored),
      refresher.getFreshTokens(stored),
    ]);
    expect(fake.calls.refresh_token).toBe(1);
    expect(first).toEqual(second);
    expect(first.accessToken).not.toBe('old');

    // Afterwards a new refresh goes upstream again, with the rotated token.
    await refresher.refresh(first);
    expect(fake.calls.refresh_token).toBe(2);
  });

  it('keeps fresh tokens without calling upstream', async () => {
    let calls = 0;
    const refresher = createTokenRefresher({
      refresh: async () => {
        calls += 1;
        return { accessToken: 'new' };
      },
      clock: { now: () => Date.parse('2030-01-01T00:00:00Z') },
    });
    const tokens = { accessToken: 'a', refreshToken: 'r', expiresAt: '2030-01-01T01:00:00.000Z' };
    expect(await refresher.getFreshTokens(tokens)).toBe(tokens);
    expect(calls).toBe(0);
  });

  it('invalid_grant from the server → reauth_required for every waiting caller; no refresh token → reauth_required', async () => {
    server = await createFakeAuthorizationServer();
    const fake = server;
    const stored = {
      accessToken: 'old',
      refreshToken: fake.issueRefreshToken(),
      expiresAt: '2000-01-01T00:00:00Z',
    };
    fake.revokeAll();
    const refresher = createTokenRefresher({
      refresh: (refreshToken) => refreshTokens({ ...endpoint(fake), refreshToken }),
    });
    const results = await Promise.allSettled([
      refresher.getFreshTokens(stored),
      refresher.getFreshTokens(stored),
    ]);
    for (const result of results) {
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason.code).toBe('reauth_required');
    }
    expect(fake.calls.refresh_token).toBe(1);
    const noRefresh = await rejection(refresher.refresh({ accessToken: 'a' }));
    expect(noRefresh.code).toBe('reauth_required');
  });
});

describe('OpenRouter PKCE key issuance', () => {
  it('exchanges the code for a key; a wrong verifier is refused', async () => {
    server = await createFakeAuthorizationServer();
    const fake = server;
    const pkce = await createPkcePair();
    const callback = await searchParamsOf(
      buildOpenRouterAuthorizationUrl({
        authorizeUrl: `${fake.url}/openrouter/auth`,
        callbackUrl: `${fake.redirectUri}?state=s1`,
        codeChallenge: pkce.codeChallenge,
        allowInsecureRequests: true,
      }),
    );
    const code = callback.get('code') ?? '';
    expect(callback.get('state')).toBe('s1');

    const wrong = await rejection(
      exchangeOpenRouterCode({
        code,
        codeVerifier: (await createPkcePair()).codeVerifier,
        keysUrl: `${fake.url}/openrouter/keys`,
        allowInsecureRequests: true,
      }),
    );
    expect(wrong.code).toBe('provider_auth');

    const issued = await exchangeOpenRouterCode({
      code,
      codeVerifier: pkce.codeVerifier,
      keysUrl: `${fake.url}/openrouter/keys`,
      allowInsecureRequests: true,
    });
    expect(issued.key).toMatch(/^[\w-]{20,}$/);
    expect(issued.userId).toBe('user-1');
    expect(fake.calls.keys).toBe(2);
  });
});

/**
 * A token or keys endpoint on 127.0.0.1 that answers every request with `status` and `body(canary)`: a custom
 * client's token URL or a `keysUrl` can point at any server, and none of its words may reach HAL's messages.
 */
async function hostileEndpoint(status: number, body: (canary: string) => unknown) {
  const canary = `canary-${randomBytes(12).toString('hex')}`;
  const hostile = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body(canary)));
    });
  });
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
  const { port } = hostile.address() as AddressInfo;
  return {
    canary,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => hostile.close(() => resolve())),
  };
}

/** A loopback port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * Everything of a HalError an operator, an API answer or a log line could show: its message and details, and the
 * messages and fields of its causes (a logger's error serializer appends those).
 */
const shown = (error: HalError) => {
  const parts: string[] = [JSON.stringify(error.details)];
  for (let at: unknown = error, depth = 0; at && depth < 5; depth += 1) {
    parts.push(at instanceof Error ? at.message : String(at), JSON.stringify({ ...(at as object) }));
    at = (at as { cause?: unknown }).cause;
  }
  return parts.join(' ');
};

describe('a foreign server’s text never reaches the error', () => {
  const exchange = (tokenUrl: string) =>
    rejection(
      exchangeCode({
        tokenUrl,
        clientId: 'hal',
        code: 'c',
        codeVerifier: 'v'.repeat(43),
        redirectUri: 'http://127.0.0.1:7420/cb',
        allowInsecureRequests: true,
      }),
    );

  it('keeps the status and the OAuth error code of a token endpoint, never its error_description', async () => {
    const prose = await hostileEndpoint(400, (canary) => ({
      error: 'invalid_grant',
      error_description: `Internal admin page: ${canary} (db=10.0.0.7:5432)`,
    }));
    try {
      const refused = await exchange(`${prose.url}/token`);
      expect(shown(refused)).not.toContain(prose.canary);
      expect(refused.code).toBe('provider_auth');
      expect(refused.message).toBe('The token endpoint refused the exchange (HTTP 400 invalid_grant)');
      expect(refused.details).toEqual({ status: 400, oauthError: 'invalid_grant' });
      const refresh = await rejection(
        refreshTokens({
          tokenUrl: `${prose.url}/token`,
          clientId: 'hal',
          refreshToken: 'r',
          allowInsecureRequests: true,
        }),
      );
      expect(shown(refresh)).not.toContain(prose.canary);
      expect(refresh.code).toBe('reauth_required');
      expect(refresh.message).toContain('HTTP 400 invalid_grant');
    } finally {
      await prose.close();
    }
    // An `error` that is prose rather than a code is dropped too; the status stays.
    const worded = await hostileEndpoint(403, (canary) => ({ error: `denied: ${canary} at /internal` }));
    try {
      const refused = await exchange(`${worded.url}/token`);
      expect(shown(refused)).not.toContain(worded.canary);
      expect(refused.message).toBe('The token endpoint refused the exchange (HTTP 403)');
      expect(refused.details).toEqual({ status: 403 });
    } finally {
      await worded.close();
    }
  });

  it('keeps the status and code of an OpenRouter keys endpoint, never error.message', async () => {
    const keys = await hostileEndpoint(403, (canary) => ({
      error: { code: 'invalid_code', message: `<html>Intranet ${canary}</html>` },
    }));
    try {
      const refused = await rejection(
        exchangeOpenRouterCode({
          code: 'c',
          codeVerifier: 'v',
          keysUrl: `${keys.url}/keys`,
          allowInsecureRequests: true,
        }),
      );
      expect(shown(refused)).not.toContain(keys.canary);
      expect(refused.code).toBe('provider_auth');
      expect(refused.message).toBe('OpenRouter refused the key exchange (HTTP 403 invalid_code)');
      expect(refused.details).toEqual({ status: 403, type: 'invalid_code' });
    } finally {
      await keys.close();
    }
  });

  it('a closed port is "unreachable", without the address or the port', async () => {
    const port = await closedPort();
    const token = await exchange(`http://127.0.0.1:${port}/token`);
    const key = await rejection(
      exchangeOpenRouterCode({
        code: 'c',
        codeVerifier: 'v',
        keysUrl: `http://127.0.0.1:${port}/keys`,
        allowInsecureRequests: true,
      }),
    );
    for (const error of [token, key]) {
      for (const word of [`:${port}`, '127.0.0.1', 'ECONNREFUSED']) expect(shown(error)).not.toContain(word);
      expect(error.code).toBe('provider_unavailable');
      expect(error.details).toEqual({ cause: 'unreachable' });
    }
  });
});
