import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFakeOpenAI, type FakeServer } from '@hal-ai/providers/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TEST_OAUTH_CALLBACK_URL as CALLBACK_URL,
  type ConnectionsTestApp,
  callbackData,
  createConnectionsTestApp,
  databaseBytes,
  openOAuthCallback,
} from '../../src/ai/connections/connection-fakes.test-support.js';
import type { TestSession } from '../foundation.test-support.js';
import { createTally, recordFigures } from './hostile-figures.test-support.js';

/*
 * #22 hole 7 through the running app: the token endpoint of a custom OAuth client, an OpenRouter `keysUrl` and the
 * authorization server's redirect are the operator's to point anywhere, so they may be an internal service that
 * words its errors with whatever it holds. A loopback server answers every error with a per-run canary in its free
 * text (`error_description`, `error.message`, the redirect's `error`); the canary must be in no `lastError`, popup
 * page, change event, audit entry, log line or database byte, while the status and the identifier-shaped code stay.
 * A closed loopback port stands for an unreachable address: neither it nor the socket's error number is shown.
 */
const api = (path = '') => `/ops/api/ai/connections${path}`;

let t: ConnectionsTestApp;
let alice: TestSession;
let models: FakeServer;
let hostile: http.Server;
let hostileUrl: string;
let closedPort: number;
const canary = `canary-${randomBytes(12).toString('hex')}`;
/** Every change event the connections service emitted (what the panel's listeners are sent). */
const events: string[] = [];

/** Token grants: `/token` issues tokens to any code and refuses every refresh; `/refuse` refuses everything. */
function answerHostile(request: http.IncomingMessage, response: http.ServerResponse, body: string) {
  const send = (status: number, json: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    response.end(JSON.stringify(json));
  };
  const prose = `Internal admin console: ${canary} (db 10.0.0.7:5432, see /srv/secrets)`;
  const grant = new URLSearchParams(body).get('grant_type');
  if (request.url === '/token' && grant === 'authorization_code') {
    send(200, {
      access_token: randomBytes(24).toString('base64url'),
      refresh_token: randomBytes(24).toString('base64url'),
      token_type: 'Bearer',
      expires_in: 3600,
    });
  } else if (request.url === '/token' || request.url === '/refuse') {
    send(400, { error: 'invalid_grant', error_description: prose });
  } else if (request.url === '/worded') {
    send(401, { error: `${canary} is not a client here`, error_description: prose });
  } else if (request.url === '/keys') {
    send(403, { error: { code: 'invalid_code', message: `<html><h1>Intranet</h1>${prose}</html>` } });
  } else {
    send(404, { error: 'not_found' });
  }
}

beforeAll(async () => {
  hostile = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => answerHostile(request, response, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
  hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  models = await createFakeOpenAI({ models: [{ id: 'claude-gw' }] });
  t = await createConnectionsTestApp({ firstByteTimeoutMs: 10_000, idleTimeoutMs: 10_000 });
  t.connections.onChange((event) => events.push(JSON.stringify(event)));
  alice = await t.login('alice');
});

afterAll(async () => {
  await t?.close();
  await models?.close();
  await new Promise<void>((resolve) => (hostile ? hostile.close(() => resolve()) : resolve()));
});

async function createCustom(name: string, tokenUrl: string): Promise<string> {
  const created = await t.call('POST', api(), alice, {
    provider: 'other',
    name,
    auth: 'oauth',
    baseUrl: models.baseUrl,
    model: 'claude-gw',
    oauth: { preset: 'custom', authorizeUrl: `${hostileUrl}/authorize`, tokenUrl, clientId: 'hal' },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.connection.id;
}

/** Starts a login and comes back to HAL's callback with its state, as the authorization server would redirect. */
async function comeBack(id: string, answer: Record<string, string>) {
  const started = await t.call('POST', api(`/${id}/oauth/start`), alice);
  expect(started.status, started.text).toBe(200);
  const authorize = new URL(started.body.authorizeUrl);
  const state =
    authorize.searchParams.get('state') ??
    new URL(authorize.searchParams.get('callback_url') ?? CALLBACK_URL).searchParams.get('state') ??
    '';
  const back = new URL(CALLBACK_URL);
  back.searchParams.set('state', state);
  for (const [name, value] of Object.entries(answer)) back.searchParams.set(name, value);
  return openOAuthCallback(t.request, back, alice);
}

const lastErrorOf = async (id: string) =>
  ((await t.call('GET', api(), alice)).body.connections as Array<{ id: string; lastError: unknown }>).find(
    (connection) => connection.id === id,
  )?.lastError as { code: string; message: string } | undefined;

describe('hostile: no foreign server’s text reaches the operator', () => {
  it('token, keys and redirect errors keep the status and the code; a closed port keeps no address', async (context) => {
    const { tally, check } = createTally();
    const outcomes: Array<{ label: string; id: string; page: string }> = [];
    const expectFailure = async (
      label: string,
      id: string,
      answer: Record<string, string>,
      words: string[],
    ) => {
      const done = await comeBack(id, answer);
      outcomes.push({ label, id, page: done.html });
      const lastError = await lastErrorOf(id);
      const shown = `${done.html} ${JSON.stringify(lastError)}`;
      check(
        done.ok === 'false' && !shown.includes(canary) && words.every((word) => shown.includes(word)),
        `${label}: ${callbackData(done.html, 'code')} ${JSON.stringify(lastError)}`,
      );
      return lastError;
    };

    // The exchange: `invalid_grant` and HTTP 400 stay, the description does not.
    const refusing = await createCustom('refusing', `${hostileUrl}/refuse`);
    const exchange = await expectFailure('exchange', refusing, { code: 'x' }, ['HTTP 400', 'invalid_grant']);
    // An `error` that is prose is dropped as a whole.
    const worded = await createCustom('worded', `${hostileUrl}/worded`);
    await expectFailure('worded error', worded, { code: 'x' }, ['HTTP 401']);
    // The authorization server's redirect: `access_denied` stays, prose goes.
    await expectFailure('redirect access_denied', refusing, { error: 'access_denied' }, ['access_denied']);
    await expectFailure('redirect prose', refusing, { error: `Denied by ${canary} at 10.0.0.7` }, [
      'refused the login',
    ]);

    // OpenRouter's key exchange at an operator-set keysUrl: HTTP 403 and `invalid_code` only.
    const router = await t.call('POST', api(), alice, {
      provider: 'openrouter',
      name: 'router',
      auth: 'oauth',
      baseUrl: models.baseUrl,
      oauth: { authorizeUrl: `${hostileUrl}/auth`, keysUrl: `${hostileUrl}/keys` },
    });
    expect(router.status, router.text).toBe(201);
    await expectFailure('keys', router.body.connection.id, { code: 'x' }, ['HTTP 403', 'invalid_code']);

    // A token endpoint nothing listens on: "could not be reached", without its address or the socket's words.
    const gone = await createCustom('gone', `http://127.0.0.1:${closedPort}/token`);
    const unreachable = await comeBack(gone, { code: 'x' });
    const goneError = await lastErrorOf(gone);
    const goneShown = `${unreachable.html} ${JSON.stringify(goneError)}`;
    check(
      goneError?.code === 'provider_unavailable' &&
        ![`:${closedPort}`, 'ECONNREFUSED'].some((word) => goneShown.includes(word)),
      `closed port: ${JSON.stringify(goneError)}`,
    );

    // The refresh: a login that worked, then the same endpoint refuses the refresh with its prose.
    const refreshing = await createCustom('refreshing', `${hostileUrl}/token`);
    const login = await comeBack(refreshing, { code: 'x' });
    expect(login.ok, login.html).toBe('true');
    t.clock.advance(3600 * 1000);
    const refused = await t.connections.languageModel(refreshing).then(
      () => new Error('the refresh was not refused'),
      (error: unknown) => error as Error,
    );
    const refreshError = await lastErrorOf(refreshing);
    check(
      refreshError?.code === 'reauth_required' &&
        refreshError.message.includes('HTTP 400 invalid_grant') &&
        !`${refused.message} ${JSON.stringify(refreshError)}`.includes(canary),
      `refresh: ${JSON.stringify(refreshError)}`,
    );

    // Nowhere else either: change events, the audit, the log, the database and its WAL.
    const audit = (await t.call('GET', '/ops/api/hal/audit?limit=200', alice)).text;
    const sinks: Record<string, string> = {
      events: events.join('\n'),
      audit,
      log: t.logLines.join(''),
      database: databaseBytes(t.dbFile),
    };
    // The closed port's address is the connection's own configured token URL (stored, shown in its settings), so
    // here only the socket's words are looked for; its presence in lastError and the page is checked above.
    let leaked = 0;
    for (const [sink, text] of Object.entries(sinks)) {
      const found = text.includes(canary);
      if (found) leaked += 1;
      check(!found, `${sink} holds the canary`);
      check(!text.includes('ECONNREFUSED'), `${sink} holds the socket's error`);
    }
    for (const outcome of outcomes) if (outcome.page.includes(canary)) leaked += 1;
    check(events.length > 0 && audit.includes('ai.connection.oauth'), 'the sinks were written');

    recordFigures(context, 'foreign error text', { ...tally, secretsLeaked: leaked });
    expect(tally.misses).toEqual([]);
    expect(leaked).toBe(0);
    expect(exchange).toEqual({
      code: 'provider_auth',
      message: 'The token endpoint refused the exchange (HTTP 400 invalid_grant)',
    });
  }, 120_000);
});
