import {
  createFakeAnthropic,
  createFakeOpenAI,
  type FakeAuthorizationServer,
  type FakeServer,
  followLogin,
} from '@hal-ai/providers/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sessionCookieFrom, type TestSession } from '../../../test/foundation.test-support.js';
import {
  TEST_OAUTH_CALLBACK_URL as CALLBACK_URL,
  type ConnectionsTestApp,
  createConnectionsTestApp,
  createTestAuthorizationServer,
  databaseBytes,
  callbackData as dataOf,
  generatedSecret,
  oauthGatewayBody,
  openOAuthCallback,
} from './connection-fakes.test-support.js';

const api = (path = '') => `/ops/api/ai/connections${path}`;

let t: ConnectionsTestApp;
let alice: TestSession;
let auth: FakeAuthorizationServer;

beforeEach(async () => {
  auth = await createTestAuthorizationServer();
  t = await createConnectionsTestApp({ firstByteTimeoutMs: 10_000, idleTimeoutMs: 10_000 });
  alice = await t.login('alice');
});

afterEach(async () => {
  await auth.close();
  await t.close();
});

const callback = (url: URL, session: TestSession) => openOAuthCallback(t.request, url, session);

async function vaultIds(): Promise<string[]> {
  return (await t.deps.vault?.list()) ?? [];
}

async function createGatewayConnection(provider: FakeServer, kind: 'anthropic' | 'other') {
  const created = await t.call(
    'POST',
    api(),
    alice,
    oauthGatewayBody(kind, kind === 'anthropic' ? provider.url : provider.baseUrl, auth),
  );
  expect(created.status).toBe(201);
  return created.body.connection;
}

describe('OAuth (authorization code + PKCE S256)', () => {
  it('logs in end to end: state, operator, single use, expiry, verifier removal, token in the vault, Bearer', async () => {
    const anthropic = await createFakeAnthropic({ models: [{ id: 'claude-gw' }] });
    try {
      const connection = await createGatewayConnection(anthropic, 'anthropic');
      expect(connection.status).toBe('reauth_required');
      expect(connection.secret).toEqual({ hasToken: false, expiresAt: null, hasRefresh: false });

      // Another operator cannot finish a login alice started.
      const first = await t.call('POST', api(`/${connection.id}/oauth/start`), alice);
      expect(first.status).toBe(200);
      const authorizeUrl = new URL(first.body.authorizeUrl);
      expect(authorizeUrl.origin + authorizeUrl.pathname).toBe(`${auth.url}/authorize`);
      const state = authorizeUrl.searchParams.get('state') ?? '';
      expect(state.length).toBeGreaterThanOrEqual(32);
      expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorizeUrl.searchParams.get('redirect_uri')).toBe(CALLBACK_URL);
      expect((await vaultIds()).filter((id) => id.includes(':oauth_verifier:'))).toHaveLength(1);
      // The state is stored only hashed.
      expect(databaseBytes(t.dbFile)).not.toContain(state);
      const stolen = await followLogin(authorizeUrl.toString());
      const bob = await t.login('bob');
      const foreign = await callback(stolen, bob);
      expect(foreign.status).toBe(400);
      expect(dataOf(foreign.html, 'code')).toBe('oauth_state_invalid');
      // A refused state is spent, and its verifier with it.
      expect((await vaultIds()).filter((id) => id.includes(':oauth_verifier:'))).toHaveLength(0);
      expect(auth.calls.authorization_code).toBe(0);

      // An expired state is refused.
      // An abandoned login's state and verifier are swept by the next start after they expire.
      await t.call('POST', api(`/${connection.id}/oauth/start`), alice);
      const late = await t.call('POST', api(`/${connection.id}/oauth/start`), alice);
      const lateBack = await followLogin(late.body.authorizeUrl);
      t.clock.advance(10 * 60_000 + 1);
      const expired = await callback(lateBack, alice);
      expect(expired.status).toBe(400);
      expect(dataOf(expired.html, 'code')).toBe('oauth_state_invalid');
      expect(auth.calls.authorization_code).toBe(0);
      expect((await vaultIds()).filter((id) => id.includes(':oauth_verifier:'))).toHaveLength(1);

      // The real login (a fresh password entry first: the clock moved past the reauth window).
      const reauth = await t.request('/ops/api/reauth', {
        method: 'POST',
        session: alice,
        json: { password: t.alice.password },
      });
      expect(reauth.status).toBe(200);
      alice = { ...alice, cookie: sessionCookieFrom(reauth) ?? alice.cookie };
      const started = await t.call('POST', api(`/${connection.id}/oauth/start`), alice);
      expect(started.status).toBe(200);
      const back = await followLogin(started.body.authorizeUrl);
      const done = await callback(back, alice);
      expect(done.status).toBe(200);
      expect(done.html).toContain('<script src="/ops/ai/oauth/callback.js"');
      expect(done.html).not.toContain('<script>');
      expect(dataOf(done.html, 'ok')).toBe('true');
      expect(dataOf(done.html, 'status')).toBe('active');
      expect(auth.calls.authorization_code).toBe(1);
      const accessToken = auth.issuedAccessTokens[0] as string;
      expect(done.html).not.toContain(accessToken);

      // Verifier gone, tokens sealed in the vault, public view shows only their shape.
      const ids = await vaultIds();
      expect(ids.filter((id) => id.includes(':oauth_verifier:'))).toEqual([]);
      expect(ids).toContain(`connection:${connection.id}:oauth`);
      const view = (await t.call('GET', api(), alice)).body.connections[0];
      expect(view.status).toBe('active');
      expect(view.models).toEqual(['claude-gw']);
      expect(view.secret).toMatchObject({ hasToken: true, hasRefresh: true });
      expect(typeof view.secret.expiresAt).toBe('string');
      expect(JSON.stringify(view)).not.toContain(accessToken);
      expect(databaseBytes(t.dbFile)).not.toContain(accessToken);
      expect(databaseBytes(t.dbFile)).not.toContain(auth.clientSecret);

      // The same callback again: single use.
      const reused = await callback(back, alice);
      expect(reused.status).toBe(400);
      expect(dataOf(reused.html, 'code')).toBe('oauth_state_invalid');

      // A later call by the adapter carries the token as Bearer (and no API-key header).
      const model = await t.connections.languageModel(connection.id);
      await model.doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
      const last = anthropic.requests.at(-1);
      expect(last?.path).toBe('/v1/messages');
      expect(last?.headers.authorization).toBe(`Bearer ${accessToken}`);
      expect(last?.headers['x-api-key']).toBeUndefined();

      const actions = (await t.deps.audit.list({ limit: 50 })).entries.map((entry) => entry.action);
      expect(actions.filter((action) => action === 'ai.connection.oauth').length).toBeGreaterThanOrEqual(4);
      const audit = JSON.stringify(await t.deps.db.selectFrom('audit').selectAll().execute());
      expect(audit).not.toContain(accessToken);
      expect(audit).not.toContain(auth.clientSecret);
      expect(t.logLines.join('\n')).not.toContain(accessToken);
    } finally {
      await anthropic.close();
    }
  });

  it('refreshes an expiring token once for concurrent callers, and asks for a new login when refresh fails', async () => {
    const openai = await createFakeOpenAI({ models: [{ id: 'claude-gw' }] });
    try {
      const connection = await createGatewayConnection(openai, 'other');
      const started = await t.call('POST', api(`/${connection.id}/oauth/start`), alice);
      expect((await callback(await followLogin(started.body.authorizeUrl), alice)).status).toBe(200);
      expect(auth.issuedAccessTokens).toHaveLength(1);

      t.clock.advance(3600 * 1000);
      auth.delayMs = 200;
      const [one, two] = await Promise.all([
        t.connections.languageModel(connection.id),
        t.connections.languageModel(connection.id),
      ]);
      expect(auth.calls.refresh_token).toBe(1);
      expect(auth.issuedAccessTokens).toHaveLength(2);
      await one.doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
      await two.doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
      for (const request of openai.requests.slice(-2)) {
        expect(request.headers.authorization).toBe(`Bearer ${auth.issuedAccessTokens[1]}`);
      }

      auth.delayMs = 0;
      auth.revokeAll();
      t.clock.advance(3600 * 1000);
      await expect(t.connections.languageModel(connection.id)).rejects.toMatchObject({
        code: 'reauth_required',
      });
      const after = await t.connections.get(connection.id);
      expect(after?.status).toBe('reauth_required');
      expect(after?.lastError?.code).toBe('reauth_required');
    } finally {
      await openai.close();
    }
  });

  it('a new token endpoint needs the client secret again (recent password) and a new login', async () => {
    const openai = await createFakeOpenAI({ models: [{ id: 'claude-gw' }] });
    try {
      const connection = await createGatewayConnection(openai, 'other');
      const started = await t.call('POST', api(`/${connection.id}/oauth/start`), alice);
      expect((await callback(await followLogin(started.body.authorizeUrl), alice)).status).toBe(200);
      expect((await t.connections.get(connection.id))?.status).toBe('active');

      const moved = { tokenUrl: `${auth.url}/token?tenant=2` };
      const refused = await t.call('PATCH', api(`/${connection.id}`), alice, { oauth: moved });
      expect(refused.status).toBe(400);
      expect(refused.body.error.issues.map((issue: { path: string }) => issue.path)).toEqual([
        'oauth.clientSecret',
      ]);

      const newSecret = generatedSecret();
      t.clock.advance(10 * 60_000 + 1);
      const stale = await t.call('PATCH', api(`/${connection.id}`), alice, {
        oauth: { ...moved, clientSecret: newSecret },
      });
      expect(stale.status).toBe(401);
      expect(stale.body.error.code).toBe('reauth_required');

      const reauth = await t.request('/ops/api/reauth', {
        method: 'POST',
        session: alice,
        json: { password: t.alice.password },
      });
      alice = { ...alice, cookie: sessionCookieFrom(reauth) ?? alice.cookie };
      const accepted = await t.call('PATCH', api(`/${connection.id}`), alice, {
        oauth: { ...moved, clientSecret: newSecret },
      });
      expect(accepted.status).toBe(200);
      expect(accepted.body.connection).toMatchObject({
        status: 'reauth_required',
        secret: { hasToken: false, hasRefresh: false },
      });
      expect(await t.deps.vault?.get(`connection:${connection.id}:oauth_client_secret`)).toBe(newSecret);
      expect(accepted.text).not.toContain(newSecret);
    } finally {
      await openai.close();
    }
  });

  it('a provider 401 during a turn, or a new base URL, sends an OAuth connection back to login', async () => {
    const openai = await createFakeOpenAI({ models: [{ id: 'claude-gw' }] });
    const other = await createFakeOpenAI({ models: [{ id: 'claude-gw' }] });
    try {
      const connection = await createGatewayConnection(openai, 'other');
      const login = async () => {
        const started = await t.call('POST', api(`/${connection.id}/oauth/start`), alice);
        expect((await callback(await followLogin(started.body.authorizeUrl), alice)).status).toBe(200);
        expect((await t.connections.get(connection.id))?.status).toBe('active');
      };
      await login();
      const { HalError } = await import('@hal-ai/spec');
      await t.connections.reportProviderError(connection.id, new HalError('provider_auth', 'token revoked'));
      expect((await t.connections.get(connection.id))?.status).toBe('reauth_required');

      await login();
      const moved = await t.call('PATCH', api(`/${connection.id}`), alice, { baseUrl: other.baseUrl });
      expect(moved.status).toBe(200);
      expect(moved.body.connection).toMatchObject({
        baseUrl: other.baseUrl,
        status: 'reauth_required',
        secret: { hasToken: false },
      });
      // The old token never reached the new host.
      expect(other.requests).toEqual([]);
    } finally {
      await openai.close();
      await other.close();
    }
  });
});

describe('OpenRouter key issuance (PKCE)', () => {
  it('gets a key through the fake OpenRouter and uses it for the model list', async () => {
    await auth.close();
    auth = await createTestAuthorizationServer();
    // The fake OpenRouter API accepts whatever key the fake login issues.
    const openrouter = await createFakeOpenAI({
      models: [{ id: 'openrouter/auto' }, { id: 'anthropic/claude-x' }],
    });
    try {
      const created = await t.call('POST', api(), alice, {
        provider: 'openrouter',
        name: 'router',
        auth: 'oauth',
        baseUrl: openrouter.baseUrl,
        oauth: { authorizeUrl: `${auth.url}/openrouter/auth`, keysUrl: `${auth.url}/openrouter/keys` },
      });
      expect(created.status).toBe(201);
      const id = created.body.connection.id;
      const started = await t.call('POST', api(`/${id}/oauth/start`), alice);
      const authorizeUrl = new URL(started.body.authorizeUrl);
      expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorizeUrl.searchParams.get('callback_url')).toMatch(
        /^http:\/\/127\.0\.0\.1:7420\/ops\/ai\/oauth\/callback\?state=/,
      );

      const back = await followLogin(authorizeUrl.toString());
      const done = await callback(back, alice);
      expect(done.status).toBe(200);
      expect(dataOf(done.html, 'status')).toBe('active');
      expect(auth.calls.keys).toBe(1);
      const issued = auth.issuedKeys[0] ?? '';
      expect(issued).not.toBe('');
      const models = openrouter.requests.filter((request) => request.path === '/v1/models');
      expect(models.at(-1)?.headers.authorization).toBe(`Bearer ${issued}`);
      const view = await t.connections.get(id);
      expect(view).toMatchObject({ status: 'active', models: ['openrouter/auto', 'anthropic/claude-x'] });
      expect(view?.secret).toEqual({ hasToken: true, expiresAt: null, hasRefresh: false });
      expect((await vaultIds()).filter((vaultId) => vaultId.includes(':oauth_verifier:'))).toEqual([]);
      expect(databaseBytes(t.dbFile)).not.toContain(issued);
    } finally {
      await openrouter.close();
    }
  });

  it('answers a callback without a known state with an error page', async () => {
    for (const query of ['', '?code=abc', '?code=abc&state=unknown']) {
      const page = await t.request(`/ops/ai/oauth/callback${query}`, { session: alice });
      expect(page.status).toBe(400);
      const html = await page.text();
      expect(dataOf(html, 'ok')).toBe('false');
      expect(dataOf(html, 'code')).toBe('oauth_state_invalid');
    }
    // Without a session the popup is sent to the login form first.
    const anonymous = await t.request('/ops/ai/oauth/callback?code=abc&state=x');
    expect(anonymous.status).toBe(302);
  });

  it('serves the callback script as an external file', async () => {
    const response = await t.request('/ops/ai/oauth/callback.js', { session: alice });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/javascript/);
    const script = await response.text();
    expect(script).toContain('postMessage');
    expect(script).toContain('window.location.origin');
  });
});
