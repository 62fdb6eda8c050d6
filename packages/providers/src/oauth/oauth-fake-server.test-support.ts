// Test support (not exported): a real OAuth 2.0 authorization server on 127.0.0.1 (node:http) that
// checks what a real one checks — PKCE S256, the exact redirect URI, client authentication,
// single-use codes, rotating refresh tokens — plus an OpenRouter-style key endpoint.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running fake authorization server. */
export interface FakeAuthorizationServer {
  url: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** Token endpoint calls by grant type. */
  calls: { authorization_code: number; refresh_token: number; keys: number };
  /** Bodies (form fields) and authorization headers the token endpoint received. */
  requests: Array<{ fields: Record<string, string>; authorization?: string }>;
  /** Makes the next token responses wait this long (to overlap concurrent callers). */
  delayMs: number;
  /** Revokes every refresh token (the next refresh gets `invalid_grant`). */
  revokeAll(): void;
  /** Issues a refresh token directly, as if from an earlier login. */
  issueRefreshToken(): string;
  close(): Promise<void>;
}

const base64url = (buffer: Buffer) => buffer.toString('base64url');
const token = () => base64url(randomBytes(24));

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
}

/** Starts the fake on port 0. */
export async function startFakeAuthorizationServer(
  options: { clientSecret?: string | null; clientAuth?: 'post' | 'basic' } = {},
): Promise<FakeAuthorizationServer> {
  const clientId = `client-${token()}`;
  const clientSecret = options.clientSecret === null ? '' : (options.clientSecret ?? token());
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const keyCodes = new Map<string, string>();
  const refreshTokens = new Set<string>();
  let redirectUri = '';

  const state: FakeAuthorizationServer = {
    url: '',
    clientId,
    clientSecret,
    redirectUri: '',
    calls: { authorization_code: 0, refresh_token: 0, keys: 0 },
    requests: [],
    delayMs: 0,
    revokeAll: () => refreshTokens.clear(),
    issueRefreshToken() {
      const value = token();
      refreshTokens.add(value);
      return value;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  function authenticated(fields: Record<string, string>, authorization: string | undefined): boolean {
    if (!clientSecret) return fields.client_id === clientId && fields.client_secret === undefined;
    if (options.clientAuth === 'basic') {
      // RFC 6749 §2.3.1: id and secret are form-urlencoded, then joined by ':' and base64-encoded.
      const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(authorization ?? '');
      if (!match?.[1] || fields.client_secret !== undefined) return false;
      const [id, secret] = Buffer.from(match[1], 'base64').toString('utf8').split(':');
      const decode = (value = '') => decodeURIComponent(value.replace(/\+/g, ' '));
      return decode(id) === clientId && decode(secret) === clientSecret;
    }
    return (
      fields.client_id === clientId && fields.client_secret === clientSecret && authorization === undefined
    );
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', state.url);
    if (request.method === 'GET' && url.pathname === '/authorize') {
      // Stands in for the login page: checks the request, then redirects back with a code.
      const params = url.searchParams;
      if (params.get('client_id') !== clientId || params.get('redirect_uri') !== redirectUri) {
        json(response, 400, { error: 'invalid_request' });
        return;
      }
      if (params.get('response_type') !== 'code' || params.get('code_challenge_method') !== 'S256') {
        json(response, 400, { error: 'invalid_request' });
        return;
      }
      const code = token();
      codes.set(code, {
        challenge: params.get('code_challenge') ?? '',
        redirectUri: params.get('redirect_uri') ?? '',
      });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', params.get('state') ?? '');
      response.writeHead(302, { location: back.toString() });
      response.end();
      return;
    }
    if (request.method === 'GET' && url.pathname === '/openrouter/auth') {
      const code = token();
      keyCodes.set(code, url.searchParams.get('code_challenge') ?? '');
      const back = new URL(url.searchParams.get('callback_url') ?? '');
      back.searchParams.set('code', code);
      response.writeHead(302, { location: back.toString() });
      response.end();
      return;
    }
    if (request.method === 'POST' && url.pathname === '/openrouter/keys') {
      state.calls.keys += 1;
      const body = JSON.parse(await readBody(request)) as Record<string, string>;
      const challenge = body.code ? keyCodes.get(body.code) : undefined;
      const computed = base64url(
        createHash('sha256')
          .update(body.code_verifier ?? '')
          .digest(),
      );
      if (!challenge || body.code_challenge_method !== 'S256' || computed !== challenge) {
        json(response, 403, { error: { message: 'Invalid code or code_verifier', code: 403 } });
        return;
      }
      keyCodes.delete(body.code as string);
      json(response, 200, { key: token(), user_id: 'user-1' });
      return;
    }
    if (request.method !== 'POST' || url.pathname !== '/token') {
      json(response, 404, { error: 'not_found' });
      return;
    }
    const fields = Object.fromEntries(new URLSearchParams(await readBody(request)));
    state.requests.push({ fields, authorization: request.headers.authorization });
    if (state.delayMs) await new Promise((resolve) => setTimeout(resolve, state.delayMs));
    if (!authenticated(fields, request.headers.authorization)) {
      json(response, 401, { error: 'invalid_client' });
      return;
    }
    if (fields.grant_type === 'authorization_code') {
      state.calls.authorization_code += 1;
      const issued = fields.code ? codes.get(fields.code) : undefined;
      const computed = base64url(
        createHash('sha256')
          .update(fields.code_verifier ?? '')
          .digest(),
      );
      if (!issued || issued.redirectUri !== fields.redirect_uri || issued.challenge !== computed) {
        json(response, 400, {
          error: 'invalid_grant',
          error_description: 'code, verifier or redirect_uri mismatch',
        });
        return;
      }
      codes.delete(fields.code as string);
    } else if (fields.grant_type === 'refresh_token') {
      state.calls.refresh_token += 1;
      if (!fields.refresh_token || !refreshTokens.delete(fields.refresh_token)) {
        json(response, 400, { error: 'invalid_grant', error_description: 'refresh token revoked or reused' });
        return;
      }
    } else {
      json(response, 400, { error: 'unsupported_grant_type' });
      return;
    }
    const refresh = token();
    refreshTokens.add(refresh);
    json(response, 200, {
      access_token: token(),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: refresh,
      scope: 'read write',
    });
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => json(response, 500, { error: 'server_error' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.url = `http://127.0.0.1:${port}`;
  redirectUri = `${state.url}/callback`;
  state.redirectUri = redirectUri;
  return state;
}

/** Follows the fake's login redirect like a browser would and returns the callback parameters. */
export async function completeLogin(authorizationUrl: string): Promise<URLSearchParams> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (response.status !== 302 || !location) throw new Error(`login failed: ${response.status}`);
  return new URL(location).searchParams;
}
