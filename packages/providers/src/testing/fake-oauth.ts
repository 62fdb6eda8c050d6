import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running fake OAuth 2.0 authorization server (see {@link createFakeAuthorizationServer}). */
export interface FakeAuthorizationServer {
  /** `http://127.0.0.1:<port>`: `/authorize`, `/token`, `/openrouter/auth`, `/openrouter/keys`. */
  readonly url: string;
  readonly clientId: string;
  /** Empty for a public client (`clientSecret: null`). */
  readonly clientSecret: string;
  /** The only redirect URI it accepts. */
  readonly redirectUri: string;
  /** Token and key endpoint calls by grant type. */
  readonly calls: { authorization_code: number; refresh_token: number; keys: number };
  /** Form fields and `Authorization` header of every token request. */
  readonly requests: Array<{ fields: Record<string, string>; authorization?: string }>;
  /** Access tokens issued, in order. */
  readonly issuedAccessTokens: string[];
  /** Keys the OpenRouter-style endpoint issued, in order. */
  readonly issuedKeys: string[];
  /** Makes token responses wait this long (to overlap concurrent callers). */
  delayMs: number;
  /** Revokes every refresh token (the next refresh gets `invalid_grant`). */
  revokeAll(): void;
  /** Issues a refresh token directly, as if from an earlier login. */
  issueRefreshToken(): string;
  /** Closes the server and drops its connections. */
  close(): Promise<void>;
}

/** Options of {@link createFakeAuthorizationServer}. */
export interface FakeAuthorizationServerOptions {
  /** The redirect URI it accepts; default `<url>/callback`. */
  redirectUri?: string;
  /** The client secret; `null` makes a public client (PKCE only). Default random. */
  clientSecret?: string | null;
  /** How a confidential client authenticates: form fields (default) or HTTP Basic. */
  clientAuth?: 'post' | 'basic';
  /** The access token of each grant; default random. */
  nextAccessToken?: () => string;
  /** The key of each OpenRouter-style issuance; default random. */
  nextKey?: () => string;
}

const base64url = (buffer: Buffer) => buffer.toString('base64url');
const randomToken = () => base64url(randomBytes(24));
const s256 = (verifier: string) => base64url(createHash('sha256').update(verifier).digest());

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
}

/**
 * A real OAuth 2.0 authorization server on 127.0.0.1 (port 0) that checks what a real one checks: PKCE S256, the
 * exact redirect URI, client authentication (form fields or Basic), single-use codes and rotating refresh tokens;
 * plus an OpenRouter-style PKCE key endpoint. `/authorize` stands in for the login page: it checks the request
 * and redirects straight back with a code (see {@link followLogin}).
 *
 * @example
 * const auth = await createFakeAuthorizationServer();
 * const back = await followLogin(authorizeUrl); // back.searchParams: code, state
 */
export async function createFakeAuthorizationServer(
  options: FakeAuthorizationServerOptions = {},
): Promise<FakeAuthorizationServer> {
  const clientId = `client-${randomToken().slice(0, 12)}`;
  const clientSecret = options.clientSecret === null ? '' : (options.clientSecret ?? randomToken());
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const keyCodes = new Map<string, string>();
  const refreshTokens = new Set<string>();
  let url = '';
  let redirectUri = '';
  const calls = { authorization_code: 0, refresh_token: 0, keys: 0 };
  const requests: FakeAuthorizationServer['requests'] = [];
  const issuedAccessTokens: string[] = [];
  const issuedKeys: string[] = [];

  const authenticated = (fields: Record<string, string>, authorization: string | undefined): boolean => {
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
  };

  const redirect = (response: ServerResponse, location: URL) => {
    response.writeHead(302, { location: location.toString() });
    response.end();
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const requestUrl = new URL(request.url ?? '/', url);
    const params = requestUrl.searchParams;
    if (request.method === 'GET' && requestUrl.pathname === '/authorize') {
      if (
        params.get('client_id') !== clientId ||
        params.get('redirect_uri') !== redirectUri ||
        params.get('response_type') !== 'code' ||
        params.get('code_challenge_method') !== 'S256'
      ) {
        json(response, 400, { error: 'invalid_request' });
        return;
      }
      const code = randomToken();
      codes.set(code, { challenge: params.get('code_challenge') ?? '', redirectUri });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', params.get('state') ?? '');
      redirect(response, back);
      return;
    }
    if (request.method === 'GET' && requestUrl.pathname === '/openrouter/auth') {
      const callback = params.get('callback_url') ?? '';
      if (
        (callback !== redirectUri && !callback.startsWith(`${redirectUri}?`)) ||
        params.get('code_challenge_method') !== 'S256'
      ) {
        json(response, 400, { error: 'invalid_request' });
        return;
      }
      const code = randomToken();
      keyCodes.set(code, params.get('code_challenge') ?? '');
      const back = new URL(callback);
      back.searchParams.set('code', code);
      redirect(response, back);
      return;
    }
    if (request.method === 'POST' && requestUrl.pathname === '/openrouter/keys') {
      calls.keys += 1;
      const body = JSON.parse(await readBody(request)) as Record<string, string>;
      const challenge = body.code ? keyCodes.get(body.code) : undefined;
      if (
        !challenge ||
        body.code_challenge_method !== 'S256' ||
        s256(body.code_verifier ?? '') !== challenge
      ) {
        json(response, 403, { error: { message: 'Invalid code or code_verifier', code: 403 } });
        return;
      }
      keyCodes.delete(body.code as string);
      const key = options.nextKey?.() ?? randomToken();
      issuedKeys.push(key);
      json(response, 200, { key, user_id: 'user-1' });
      return;
    }
    if (request.method !== 'POST' || requestUrl.pathname !== '/token') {
      json(response, 404, { error: 'not_found' });
      return;
    }
    const fields = Object.fromEntries(new URLSearchParams(await readBody(request)));
    requests.push({ fields, authorization: request.headers.authorization });
    if (state.delayMs) await new Promise((resolve) => setTimeout(resolve, state.delayMs));
    if (!authenticated(fields, request.headers.authorization)) {
      json(response, 401, { error: 'invalid_client' });
      return;
    }
    if (fields.grant_type === 'authorization_code') {
      calls.authorization_code += 1;
      const issued = fields.code ? codes.get(fields.code) : undefined;
      if (
        !issued ||
        issued.redirectUri !== fields.redirect_uri ||
        issued.challenge !== s256(fields.code_verifier ?? '')
      ) {
        json(response, 400, {
          error: 'invalid_grant',
          error_description: 'code, verifier or redirect_uri mismatch',
        });
        return;
      }
      codes.delete(fields.code as string);
    } else if (fields.grant_type === 'refresh_token') {
      calls.refresh_token += 1;
      if (!fields.refresh_token || !refreshTokens.delete(fields.refresh_token)) {
        json(response, 400, { error: 'invalid_grant', error_description: 'refresh token revoked or reused' });
        return;
      }
    } else {
      json(response, 400, { error: 'unsupported_grant_type' });
      return;
    }
    const refresh = randomToken();
    refreshTokens.add(refresh);
    const accessToken = options.nextAccessToken?.() ?? randomToken();
    issuedAccessTokens.push(accessToken);
    json(response, 200, {
      access_token: accessToken,
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
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  redirectUri = options.redirectUri ?? `${url}/callback`;

  const state: FakeAuthorizationServer = {
    url,
    clientId,
    clientSecret,
    redirectUri,
    calls,
    requests,
    issuedAccessTokens,
    issuedKeys,
    delayMs: 0,
    revokeAll: () => refreshTokens.clear(),
    issueRefreshToken() {
      const value = randomToken();
      refreshTokens.add(value);
      return value;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return state;
}

/**
 * Follows a fake `/authorize` redirect like a browser (or `/openrouter/auth`, whose `callback_url` must be the
 * redirect URI, with or without a query); resolves with where it sends the browser back to.
 */
export async function followLogin(authorizeUrl: string): Promise<URL> {
  const response = await fetch(authorizeUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (response.status !== 302 || !location) throw new Error(`login failed: ${response.status}`);
  return new URL(location);
}
