import { createHash, randomBytes } from 'node:crypto';
import {
  createFakeAnthropic,
  type FakeAuthorizationServer,
  type FakeServer,
  followLogin,
} from '@hal-ai/providers/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TEST_OAUTH_CALLBACK_URL as CALLBACK_URL,
  type ConnectionsTestApp,
  createConnectionsTestApp,
  createTestAuthorizationServer,
  oauthGatewayBody,
  openOAuthCallback,
} from '../../src/ai/connections/connection-fakes.test-support.js';
import { sessionCookieFrom, type TestSession } from '../foundation.test-support.js';
import { createTally, recordFigures } from './hostile-figures.test-support.js';

/*
 * OAuth misuse against a real authorization server on 127.0.0.1 that checks what real ones check (PKCE S256, the
 * exact redirect URI, single-use codes): callbacks with unknown, reused, expired or another operator's state, a
 * code minted for someone else's verifier, foreign origins, authorize URLs that are not the configured one, and a
 * replayed callback. Each is refused with its code, stores no token and leaves the connection not active.
 */
const api = (path = '') => `/ops/api/ai/connections${path}`;

let t: ConnectionsTestApp;
let alice: TestSession;
let bob: TestSession;
let auth: FakeAuthorizationServer;
let anthropic: FakeServer;

beforeAll(async () => {
  auth = await createTestAuthorizationServer();
  anthropic = await createFakeAnthropic({ models: [{ id: 'claude-gw' }] });
  t = await createConnectionsTestApp({ firstByteTimeoutMs: 10_000, idleTimeoutMs: 10_000 });
  alice = await t.login('alice');
  bob = await t.login('bob');
});

afterAll(async () => {
  await t?.close();
  await auth?.close();
  await anthropic?.close();
});

/** Opens the callback as the popup would, with that operator's session cookie. */
const callback = (url: URL | string, session: TestSession) => openOAuthCallback(t.request, url, session);

/** A fresh password entry: the manual clock moves past the re-authentication window in these tests. */
async function reauthenticate(who: 'alice' | 'bob'): Promise<void> {
  const session = who === 'alice' ? alice : bob;
  const password = who === 'alice' ? t.alice.password : t.bob.password;
  const response = await t.request('/ops/api/reauth', { method: 'POST', session, json: { password } });
  expect(response.status).toBe(200);
  const cookie = sessionCookieFrom(response) ?? session.cookie;
  if (who === 'alice') alice = { ...alice, cookie };
  else bob = { ...bob, cookie };
}

async function createConnection(name: string, oauth: Record<string, unknown> = {}) {
  const created = await t.call(
    'POST',
    api(),
    alice,
    oauthGatewayBody('anthropic', anthropic.url, auth, { name, oauth }),
  );
  expect(created.status, created.text).toBe(201);
  return created.body.connection as { id: string };
}

async function connectionOf(id: string) {
  const listed = await t.call('GET', api(), alice);
  return (
    listed.body.connections as Array<{ id: string; status: string; secret: { hasToken: boolean } }>
  ).find((connection) => connection.id === id);
}

async function start(id: string, session: TestSession = alice): Promise<URL> {
  const started = await t.call('POST', api(`/${id}/oauth/start`), session);
  expect(started.status, started.text).toBe(200);
  return new URL(started.body.authorizeUrl);
}

async function loginRows(): Promise<number> {
  const rows = await sql<{ n: number }>`select count(*) as n from ai_oauth_states`.execute(t.deps.db);
  return Number(rows.rows[0]?.n ?? 0);
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

describe('hostile: OAuth state, PKCE and redirect misuse', () => {
  it('refuses unknown, missing, foreign, expired, reused and injected callbacks: no token, not active', async (context) => {
    const { tally, check } = createTally();
    const connection = await createConnection('gateway');
    const notLoggedIn = async (label: string) => {
      const row = await connectionOf(connection.id);
      check(row?.secret.hasToken === false && row.status !== 'active', `${label}: ${JSON.stringify(row)}`);
    };
    const refused = (answer: { status: number; code?: string | undefined }, code: string, label: string) =>
      check(answer.status === 400 && answer.code === code, `${label}: ${answer.status} ${answer.code}`);

    // Unknown and missing states.
    for (const state of [randomBytes(32).toString('base64url'), '', 'x', '\'"><script>', '%00']) {
      const back = new URL(CALLBACK_URL);
      back.searchParams.set('code', randomBytes(16).toString('base64url'));
      back.searchParams.set('state', state);
      refused(await callback(back, alice), 'oauth_state_invalid', `state ${JSON.stringify(state)}`);
    }
    refused(
      await callback(`${new URL(CALLBACK_URL).pathname}?code=abc`, alice),
      'oauth_state_invalid',
      'no state',
    );
    await notLoggedIn('after unknown states');

    // Another operator's state: refused, and spent (alice cannot finish it afterwards either).
    const stolen = await followLogin((await start(connection.id)).toString());
    refused(await callback(stolen, bob), 'oauth_state_invalid', "bob finishes alice's login");
    refused(await callback(stolen, alice), 'oauth_state_invalid', 'alice after the refusal');
    await notLoggedIn('after a foreign state');

    // Expired.
    const late = await followLogin((await start(connection.id)).toString());
    t.clock.advance(10 * 60_000 + 1);
    refused(await callback(late, alice), 'oauth_state_invalid', 'expired state');
    await reauthenticate('alice');
    await notLoggedIn('after an expired state');

    // Code injection: a code the attacker got for their own PKCE challenge, pasted under alice's state. The
    // server checks S256 against HAL's verifier and refuses the exchange.
    const victim = await start(connection.id);
    const attackerVerifier = randomBytes(32).toString('base64url');
    const attackerAuthorize = new URL(victim);
    attackerAuthorize.searchParams.set('code_challenge', s256(attackerVerifier));
    attackerAuthorize.searchParams.set('state', 'attacker');
    const attackerCode = (await followLogin(attackerAuthorize.toString())).searchParams.get('code') ?? '';
    const injected = new URL(CALLBACK_URL);
    injected.searchParams.set('code', attackerCode);
    injected.searchParams.set('state', victim.searchParams.get('state') ?? '');
    const injectedAnswer = await callback(injected, alice);
    check(
      injectedAnswer.status >= 400 &&
        injectedAnswer.code === 'provider_auth' &&
        injectedAnswer.ok === 'false',
      `injected code: ${injectedAnswer.status} ${injectedAnswer.code}`,
    );
    await notLoggedIn('after an injected code');
    // The fake is a real check: the attacker's own verifier would have worked, a missing or wrong one does not.
    const direct = [undefined, '', randomBytes(32).toString('base64url')];
    for (const verifier of direct) {
      const response = await fetch(`${auth.url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: attackerCode,
          redirect_uri: CALLBACK_URL,
          client_id: auth.clientId,
          client_secret: auth.clientSecret,
          ...(verifier === undefined ? {} : { code_verifier: verifier }),
        }),
      });
      const body = (await response.json()) as { error?: string };
      check(
        response.status === 400 && body.error === 'invalid_grant',
        `verifier ${JSON.stringify(verifier)} at the fake`,
      );
    }

    // The real login, then its callback replayed: the second is refused and changes nothing.
    await reauthenticate('alice');
    const back = await followLogin((await start(connection.id)).toString());
    const done = await callback(back, alice);
    expect(done).toMatchObject({ status: 200, ok: 'true' });
    expect(await connectionOf(connection.id)).toMatchObject({ status: 'active', secret: { hasToken: true } });
    const exchanges = auth.calls.authorization_code;
    const tokens = auth.issuedAccessTokens.length;
    refused(await callback(back, alice), 'oauth_state_invalid', 'replayed callback');
    refused(await callback(back, bob), 'oauth_state_invalid', 'replayed callback by bob');
    expect(auth.calls.authorization_code).toBe(exchanges);
    expect(auth.issuedAccessTokens.length).toBe(tokens);
    expect(await connectionOf(connection.id)).toMatchObject({ status: 'active', secret: { hasToken: true } });

    recordFigures(context, 'OAuth misuse', tally);
    expect(tally.misses).toEqual([]);
    // No refused callback of HAL's reached the token endpoint but the injected code's (then the real login).
    expect(exchanges - direct.length).toBe(2);
  }, 120_000);

  it("builds the redirect from HAL's public origin only, refuses a foreign origin, and keeps to the configured authorize URL", async (context) => {
    const { tally, check } = createTally();
    await reauthenticate('alice');
    const connection = await createConnection('gateway-origin', {
      // Parameters smuggled into the configured URL never replace HAL's own.
      authorizeUrl: `${auth.url}/authorize?redirect_uri=${encodeURIComponent('http://127.0.0.1:9/steal')}&state=attacker&client_id=other&code_challenge_method=plain`,
    });
    const before = await loginRows();
    // A start or a callback with a foreign Host never gets as far as a state (DNS rebinding, a forged Host).
    for (const host of ['rebound.evil.example', '127.0.0.1.evil.example', 'localhost.evil.example:7420']) {
      const started = await t.request(`http://${host}${api(`/${connection.id}/oauth/start`)}`, {
        method: 'POST',
        session: alice,
        json: {},
      });
      const body = (await started.json()) as { error?: { code?: string } };
      check(
        started.status === 400 && body.error?.code === 'validation_failed',
        `start via ${host}: ${started.status}`,
      );
      const back = await t.request(`http://${host}/ops/ai/oauth/callback?code=x&state=y`, { session: alice });
      check(back.status === 400, `callback via ${host}: ${back.status}`);
    }
    check((await loginRows()) === before, 'no login state stored for a foreign origin');

    // The authorize URL is the configured endpoint, with exactly HAL's redirect URI, state and S256 challenge.
    const authorize = await start(connection.id);
    check(
      authorize.origin + authorize.pathname === `${auth.url}/authorize`,
      `authorize endpoint ${authorize.origin}`,
    );
    for (const name of ['redirect_uri', 'state', 'client_id', 'code_challenge_method', 'code_challenge']) {
      check(authorize.searchParams.getAll(name).length === 1, `one ${name}`);
    }
    check(
      authorize.searchParams.get('redirect_uri') === CALLBACK_URL,
      `redirect_uri ${authorize.searchParams.get('redirect_uri')}`,
    );
    check(authorize.searchParams.get('state') !== 'attacker', "the state is HAL's");
    check(authorize.searchParams.get('client_id') === auth.clientId, 'the client id is the configured one');
    check(authorize.searchParams.get('code_challenge_method') === 'S256', 'S256');

    // A callback that the server sends somewhere else than HAL's origin is refused there (exact redirect URI).
    const elsewhere = new URL(authorize);
    elsewhere.searchParams.set('redirect_uri', 'http://127.0.0.1:9/steal');
    const refusedRedirect = await fetch(elsewhere, { redirect: 'manual' });
    check(
      refusedRedirect.status === 400,
      `the fake refuses a foreign redirect_uri: ${refusedRedirect.status}`,
    );

    // Authorize URLs that are not http(s) endpoints are refused when configured: nothing is stored.
    const count = (await t.call('GET', api(), alice)).body.connections.length;
    for (const authorizeUrl of [
      'javascript:alert(1)',
      'file:///etc/passwd',
      'data:text/html,<script>alert(1)</script>',
      `http://user:pass@127.0.0.1:${new URL(auth.url).port}/authorize`,
      '//127.0.0.1/authorize',
      'not a url',
    ]) {
      const created = await t.call('POST', api(), alice, {
        provider: 'anthropic',
        name: 'bad-authorize',
        auth: 'oauth',
        baseUrl: anthropic.url,
        model: 'claude-gw',
        oauth: { preset: 'custom', authorizeUrl, tokenUrl: `${auth.url}/token`, clientId: auth.clientId },
      });
      check(
        created.status === 400 && created.body.error?.code === 'validation_failed',
        `create with ${authorizeUrl}: ${created.status}`,
      );
      const edited = await t.call('PATCH', api(`/${connection.id}`), alice, {
        oauth: { preset: 'custom', authorizeUrl },
      });
      check(
        edited.status === 400 && edited.body.error?.code === 'validation_failed',
        `edit to ${authorizeUrl}: ${edited.status}`,
      );
    }
    check((await t.call('GET', api(), alice)).body.connections.length === count, 'no connection was created');
    const row = await connectionOf(connection.id);
    check(row?.secret.hasToken === false && row.status !== 'active', 'the connection is not logged in');
    recordFigures(context, 'OAuth misuse', tally);
    expect(tally.misses).toEqual([]);
  }, 120_000);
});
