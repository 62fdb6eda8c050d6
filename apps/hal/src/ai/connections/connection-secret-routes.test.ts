import {
  createFakeOpenAI,
  type FakeAuthorizationServer,
  type FakeServer,
  followLogin,
} from '@hal-ai/providers/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestSession } from '../../../test/foundation.test-support.js';
import {
  type ConnectionsTestApp,
  createConnectionsTestApp,
  createTestAuthorizationServer,
  databaseBytes,
  generatedSecret,
  oauthGatewayBody,
  openOAuthCallback,
} from './connection-fakes.test-support.js';

const api = (path = '') => `/ops/api/ai/connections${path}`;

let t: ConnectionsTestApp;
let alice: TestSession;
let auth: FakeAuthorizationServer;
let gateway: FakeServer;

beforeEach(async () => {
  auth = await createTestAuthorizationServer();
  gateway = await createFakeOpenAI({ models: [{ id: 'claude-gw' }] });
  t = await createConnectionsTestApp({ firstByteTimeoutMs: 10_000, idleTimeoutMs: 10_000 });
  alice = await t.login('alice');
});

afterEach(async () => {
  await Promise.all([auth.close(), gateway.close()]);
  await t.close();
});

/** Runs one OAuth login of the connection as the popup does: start, the authorization server, the callback. */
async function logIn(id: string) {
  const started = await t.call('POST', api(`/${id}/oauth/start`), alice);
  expect(started.status).toBe(200);
  return openOAuthCallback(t.request, await followLogin(started.body.authorizeUrl), alice);
}

// SPEC §2 / §13 `POST /ops/api/ai/connections/:id/secret` with `{clientSecret}` (issue #16 point 4): the route
// that replaces an operator-supplied OAuth client's secret had no test of its own; the token exchange after it
// is the proof that HAL uses the new secret and not the one it was created with.
describe('POST /ops/api/ai/connections/:id/secret {clientSecret}', () => {
  it('replaces the OAuth client secret: the next token exchange sends the new one, and nothing leaks', async () => {
    const wrong = generatedSecret();
    const created = await t.call(
      'POST',
      api(),
      alice,
      oauthGatewayBody('other', gateway.baseUrl, { ...auth, clientSecret: wrong }),
    );
    expect(created.status).toBe(201);
    const id = created.body.connection.id as string;

    // With the secret it was created with, the authorization server refuses the exchange.
    const refused = await logIn(id);
    expect(refused.ok).toBe('false');
    expect(auth.requests.at(-1)?.fields.client_secret).toBe(wrong);
    expect(auth.issuedAccessTokens).toEqual([]);

    const replaced = await t.call('POST', api(`/${id}/secret`), alice, { clientSecret: auth.clientSecret });
    expect(replaced.status).toBe(200);
    expect(replaced.body.connection).toMatchObject({ id, auth: 'oauth' });
    expect(replaced.text).not.toContain(auth.clientSecret);
    expect(await t.deps.vault?.get(`connection:${id}:oauth_client_secret`)).toBe(auth.clientSecret);

    const done = await logIn(id);
    expect(done.ok).toBe('true');
    expect(auth.requests.at(-1)?.fields.client_secret).toBe(auth.clientSecret);
    // Two exchanges reached the server; only the one with the replaced secret got a token.
    expect(auth.requests).toHaveLength(2);
    expect(auth.issuedAccessTokens).toHaveLength(1);
    const listed = await t.call('GET', api(), alice);
    expect(listed.body.connections[0]).toMatchObject({ id, status: 'active' });

    const audit = JSON.stringify(await t.deps.db.selectFrom('audit').selectAll().execute());
    expect(audit).toContain('oauth_client_secret');
    for (const secret of [wrong, auth.clientSecret]) {
      expect(audit).not.toContain(secret);
      expect(t.logLines.join('\n')).not.toContain(secret);
      expect(databaseBytes(t.dbFile)).not.toContain(secret);
    }
  });

  it('refuses a client secret for an API-key connection, a key for an OAuth one, and both or neither', async () => {
    const oauth = await t.call('POST', api(), alice, oauthGatewayBody('other', gateway.baseUrl, auth));
    const keyed = await t.call('POST', api(), alice, {
      provider: 'openai',
      name: 'keyed',
      auth: 'api_key',
      apiKey: generatedSecret(),
      baseUrl: gateway.baseUrl,
      model: 'claude-gw',
    });
    expect([oauth.status, keyed.status]).toEqual([201, 201]);
    const oauthId = oauth.body.connection.id as string;
    const keyedId = keyed.body.connection.id as string;
    const cases: Array<[string, Record<string, string>]> = [
      [keyedId, { clientSecret: generatedSecret() }],
      [oauthId, { apiKey: generatedSecret() }],
      [oauthId, { apiKey: generatedSecret(), clientSecret: generatedSecret() }],
      [oauthId, {}],
    ];
    for (const [id, body] of cases) {
      const answer = await t.call('POST', api(`/${id}/secret`), alice, body);
      expect({ body: Object.keys(body), status: answer.status, code: answer.body.error.code }).toEqual({
        body: Object.keys(body),
        status: 400,
        code: 'validation_failed',
      });
    }
    // The refused bodies changed nothing: the secret it was created with is the one the vault holds.
    expect(await t.deps.vault?.get(`connection:${oauthId}:oauth_client_secret`)).toBe(auth.clientSecret);
  });

  it('asks for the password again once the re-authentication window is over', async () => {
    const created = await t.call('POST', api(), alice, oauthGatewayBody('other', gateway.baseUrl, auth));
    const id = created.body.connection.id as string;
    t.clock.advance(60 * 60_000);
    const late = generatedSecret();
    const answer = await t.call('POST', api(`/${id}/secret`), alice, { clientSecret: late });
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('reauth_required');
    expect(await t.deps.vault?.get(`connection:${id}:oauth_client_secret`)).toBe(auth.clientSecret);
  });
});
