import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFakeAnthropic, createFakeOpenAI, type FakeServer } from '@hal-ai/providers/testing';
import { HalError } from '@hal-ai/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sessionCookieFrom, type TestSession } from '../../../test/foundation.test-support.js';
import {
  type ConnectionsTestApp,
  createConnectionsTestApp,
  databaseBytes,
  generatedSecret,
  TEST_OAUTH_CALLBACK_URL,
} from './connection-fakes.test-support.js';

const api = (path = '') => `/ops/api/ai/connections${path}`;
const REAUTH_WINDOW_MS = 600_000;

let t: ConnectionsTestApp;
let session: TestSession;
let apiKey: string;
let openai: FakeServer;

beforeEach(async () => {
  apiKey = generatedSecret();
  openai = await createFakeOpenAI({
    apiKey,
    models: [{ id: 'gpt-small' }, { id: 'gpt-large' }, { id: 'gpt-huge' }],
  });
  t = await createConnectionsTestApp({ firstByteTimeoutMs: 10_000, idleTimeoutMs: 10_000 });
  session = await t.login();
});

afterEach(async () => {
  await openai.close();
  await t.close();
});

function openaiBody(overrides: Record<string, unknown> = {}) {
  return {
    provider: 'openai',
    name: 'gpt',
    auth: 'api_key',
    apiKey,
    baseUrl: openai.baseUrl,
    model: 'gpt-small',
    identity: { role: 'reviewer', traits: 'terse', instructions: 'cite evidence' },
    tools: { preset: 'read_only' },
    ...overrides,
  };
}

describe('/ops/api/ai/connections', () => {
  it('needs a session, and a CSRF token on writes', async () => {
    const anonymous = await t.request(api());
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error.code).toBe('unauthenticated');
    const forged = await t.request(api(), {
      method: 'POST',
      session,
      headers: { 'x-csrf-token': 'forged' },
      json: openaiBody(),
    });
    expect(forged.status).toBe(403);
    expect((await t.call('GET', api(), session)).body.connections).toEqual([]);
  });

  it('creates, lists, changes and deletes a connection with the spec shapes', async () => {
    const created = await t.call('POST', api(), session, openaiBody());
    expect(created.status).toBe(201);
    const connection = created.body.connection;
    expect(connection).toMatchObject({
      name: 'gpt',
      provider: 'openai',
      auth: 'api_key',
      baseUrl: openai.baseUrl,
      model: 'gpt-small',
      models: ['gpt-small', 'gpt-large', 'gpt-huge'],
      identity: { role: 'reviewer', traits: 'terse', instructions: 'cite evidence' },
      tools: { preset: 'read_only', enabled: [] },
      status: 'active',
      lastError: null,
      secret: { hasKey: true },
    });
    expect(typeof connection.secret.hint).toBe('string');
    expect(connection.lastCheckedAt).toBe(new Date(t.clock.now()).toISOString());
    // The check really asked the provider, with the key.
    expect(
      openai.requests.some((r) => r.path === '/v1/models' && r.headers.authorization === `Bearer ${apiKey}`),
    ).toBe(true);

    const second = await t.call('POST', api(), session, {
      provider: 'local-cli',
      name: 'cli',
      auth: 'cli',
      cli: { tool: 'codex' },
    });
    expect(second.status).toBe(201);
    // No codex on this machine's search path: the check says so on the connection.
    expect(second.body.connection.secret).toEqual({
      cli: true,
      tool: 'codex',
      path: null,
      version: null,
      loggedIn: null,
      checkedAt: second.body.connection.lastCheckedAt,
    });

    const listed = await t.call('GET', api(), session);
    expect(listed.status).toBe(200);
    expect(listed.body.connections.map((c: { name: string }) => c.name)).toEqual(['gpt', 'cli']);
    // The listen address (HAL_PUBLIC_URL unset), never the request's Host.
    expect(listed.body.callbackUrl).toBe(TEST_OAUTH_CALLBACK_URL);
    const providerIds = listed.body.providers.map((p: { id: string }) => p.id);
    expect(providerIds).toEqual(['anthropic', 'openai', 'openrouter', 'gemini', 'other', 'local-cli']);
    expect(listed.body.providers[0].guide.apiKey).toMatch(/key/i);

    const patched = await t.call('PATCH', api(`/${connection.id}`), session, {
      name: 'gpt-main',
      identity: { traits: 'patient' },
      tools: { preset: 'custom', enabled: ['hal_health'] },
      model: 'gpt-large',
    });
    expect(patched.status).toBe(200);
    expect(patched.body.connection).toMatchObject({
      name: 'gpt-main',
      identity: { role: 'reviewer', traits: 'patient', instructions: 'cite evidence' },
      tools: { preset: 'custom', enabled: ['hal_health'] },
      model: 'gpt-large',
    });

    const disabled = await t.call('PATCH', api(`/${connection.id}`), session, { status: 'disabled' });
    expect(disabled.body.connection.status).toBe('disabled');
    await expect(t.connections.languageModel(connection.id)).rejects.toMatchObject({
      code: 'connection_inactive',
    });
    const enabled = await t.call('PATCH', api(`/${connection.id}`), session, { status: 'active' });
    expect(enabled.body.connection.status).toBe('active');

    const duplicate = await t.call('POST', api(), session, openaiBody({ name: 'GPT-MAIN' }));
    expect(duplicate.status).toBe(409);

    const deleted = await t.request(api(`/${connection.id}`), { method: 'DELETE', session });
    expect(deleted.status).toBe(204);
    const after = await t.call('GET', api(), session);
    expect(after.body.connections.map((c: { name: string }) => c.name)).toEqual(['cli']);
    expect((await t.deps.vault?.list())?.filter((id) => id.includes(connection.id))).toEqual([]);
    const actions = (await t.deps.audit.list({ limit: 50 })).entries.map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        'ai.connection.create',
        'ai.connection.check',
        'ai.connection.update',
        'ai.connection.delete',
      ]),
    );
    expect((await t.call('GET', api('/nope'), session)).status).toBe(404);
    expect((await t.call('PATCH', api('/nope'), session, { name: 'x' })).status).toBe(404);
  });

  it('never lets the key out: responses, lists, audit, logs and the database file hold only hints', async () => {
    const texts: string[] = [];
    const record = async (result: Promise<{ status: number; text: string }>) => {
      const value = await result;
      texts.push(value.text);
      return value;
    };
    const created = await record(t.call('POST', api(), session, openaiBody()));
    const id = JSON.parse(created.text).connection.id as string;
    await record(t.call('GET', api(), session));
    await record(t.call('POST', api(`/${id}/test`), session));
    await record(t.call('PATCH', api(`/${id}`), session, { name: 'renamed' }));
    const replacement = generatedSecret();
    await openai.close();
    openai = await createFakeOpenAI({ apiKey: replacement, models: [{ id: 'gpt-small' }] });
    await record(t.call('PATCH', api(`/${id}`), session, { baseUrl: openai.baseUrl, apiKey: replacement }));
    await record(t.call('POST', api(`/${id}/secret`), session, { apiKey: replacement }));
    await record(t.call('GET', api(), session));
    // A failing check with the old key, to cover error paths and their logs too.
    await record(t.call('POST', api(`/${id}/secret`), session, { apiKey }));
    // Sanity: the checks really ran against the fake with these keys.
    expect(openai.requests.filter((r) => r.path === '/v1/models').length).toBeGreaterThanOrEqual(3);

    const audit = JSON.stringify(await t.deps.db.selectFrom('audit').selectAll().execute());
    const bytes = databaseBytes(t.dbFile);
    for (const secret of [apiKey, replacement]) {
      for (const text of texts) expect(text).not.toContain(secret);
      expect(audit).not.toContain(secret);
      expect(t.logLines.join('\n')).not.toContain(secret);
      expect(bytes).not.toContain(secret);
      expect(bytes).not.toContain(Buffer.from(secret).toString('base64'));
    }
    expect(t.logLines.length).toBeGreaterThan(0);
    expect(audit).toContain('ai.connection.secret');
    expect(await t.deps.vault?.get(`connection:${id}:api_key`)).toBe(apiKey);
  });

  it('tells the screen to log in next after creating an OAuth connection, and lists the pickable tools', async () => {
    const oauth = await t.call('POST', api(), session, {
      provider: 'other',
      name: 'gateway',
      auth: 'oauth',
      baseUrl: openai.baseUrl,
      oauth: {
        authorizeUrl: `${openai.url}/authorize`,
        tokenUrl: `${openai.url}/token`,
        clientId: 'hal',
        clientSecret: generatedSecret(),
        scopes: ['models.read'],
      },
    });
    expect(oauth.status).toBe(201);
    expect(oauth.body.connection.status).toBe('reauth_required');
    expect(oauth.body.next).toEqual({ action: 'oauth' });

    // An API-key connection is finished by its check: nothing comes next.
    const keyed = await t.call('POST', api(), session, openaiBody());
    expect(keyed.status).toBe(201);
    expect(keyed.body).not.toHaveProperty('next');

    const listed = await t.call('GET', api(), session);
    const tools = listed.body.tools as Array<{ name: string; risk: string }>;
    expect(tools.find((tool) => tool.name === 'hal_health')).toEqual({ name: 'hal_health', risk: 'read' });
    expect(tools.find((tool) => tool.name === 'hal_server_isolate')?.risk).toBe('high');
    expect(tools.find((tool) => tool.name === 'hal_incident_open')?.risk).toBe('write');
  });

  it('requires a recent password for key changes and deletion', async () => {
    const created = await t.call('POST', api(), session, openaiBody());
    const id = created.body.connection.id;
    t.clock.advance(REAUTH_WINDOW_MS + 1);

    const attempts = [
      await t.call('POST', api(), session, openaiBody({ name: 'second' })),
      await t.call('POST', api(`/${id}/secret`), session, { apiKey: generatedSecret() }),
      await t.call('PATCH', api(`/${id}`), session, { baseUrl: openai.baseUrl, apiKey: generatedSecret() }),
      await t.call('DELETE', api(`/${id}`), session),
      await t.call('POST', api(), session, {
        provider: 'other',
        name: 'gateway',
        auth: 'oauth',
        baseUrl: openai.baseUrl,
        oauth: {
          authorizeUrl: openai.url,
          tokenUrl: openai.url,
          clientId: 'hal',
          clientSecret: generatedSecret(),
        },
      }),
    ];
    for (const attempt of attempts) {
      expect(attempt.status).toBe(401);
      expect(attempt.body.error.code).toBe('reauth_required');
    }
    expect(await t.deps.vault?.get(`connection:${id}:api_key`)).toBe(apiKey);
    expect((await t.call('GET', api(), session)).body.connections).toHaveLength(1);

    // Changes that are not key changes still work outside the window.
    expect((await t.call('PATCH', api(`/${id}`), session, { name: 'still-ok' })).status).toBe(200);
    // Creating a connection without a key is an authentication change too: a local CLI acts as the server's
    // logged-in account (issue #22, hole 5).
    const cli = await t.call('POST', api(), session, {
      provider: 'local-cli',
      name: 'c',
      auth: 'cli',
      cli: { tool: 'claude' },
    });
    expect(cli.status).toBe(401);
    expect(cli.body.error.code).toBe('reauth_required');
    expect((await t.call('GET', api(), session)).body.connections).toHaveLength(1);

    const reauth = await t.request('/ops/api/reauth', {
      method: 'POST',
      session,
      json: { password: t.alice.password },
    });
    expect(reauth.status).toBe(200);
    const renewed = { ...session, cookie: sessionCookieFrom(reauth) ?? session.cookie };
    expect((await t.call('DELETE', api(`/${id}`), renewed)).status).toBe(204);
  });

  it('widening a tool preset needs a recent password; narrowing it does not', async () => {
    const created = await t.call('POST', api(), session, openaiBody({ tools: { preset: 'read_only' } }));
    const id = created.body.connection.id;
    t.clock.advance(REAUTH_WINDOW_MS + 1);
    for (const tools of [
      { preset: 'all' },
      { preset: 'read_write' },
      { preset: 'custom', enabled: ['hal_server_isolate'] },
    ]) {
      const widened = await t.call('PATCH', api(`/${id}`), session, { tools });
      expect(widened.status, JSON.stringify(tools)).toBe(401);
      expect(widened.body.error.code).toBe('reauth_required');
    }
    expect((await t.connections.get(id))?.tools.preset).toBe('read_only');
    // A custom list of read tools only, then none: each is a narrowing (or equal), allowed outside the window.
    const custom = await t.call('PATCH', api(`/${id}`), session, {
      tools: { preset: 'custom', enabled: ['hal_health'] },
    });
    expect(custom.status).toBe(200);
    expect((await t.call('PATCH', api(`/${id}`), session, { tools: { preset: 'none' } })).status).toBe(200);
    // Back from none to that custom list is a widening again.
    const back = await t.call('PATCH', api(`/${id}`), session, {
      tools: { preset: 'custom', enabled: ['hal_health'] },
    });
    expect(back.status).toBe(401);
  });

  it('refuses a base-URL change without the key, and re-checks against the new URL with it', async () => {
    const created = await t.call('POST', api(), session, openaiBody());
    const id = created.body.connection.id;
    const other = await createFakeOpenAI({ apiKey, models: [{ id: 'gpt-small' }, { id: 'other-model' }] });
    try {
      const refused = await t.call('PATCH', api(`/${id}`), session, { baseUrl: other.baseUrl });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('validation_failed');
      expect(refused.body.error.issues).toEqual([expect.objectContaining({ path: 'apiKey' })]);
      expect((await t.connections.get(id))?.baseUrl).toBe(openai.baseUrl);

      const moved = await t.call('PATCH', api(`/${id}`), session, { baseUrl: other.baseUrl, apiKey });
      expect(moved.status).toBe(200);
      expect(moved.body.connection).toMatchObject({
        baseUrl: other.baseUrl,
        models: ['gpt-small', 'other-model'],
      });
      expect(other.requests.some((r) => r.path === '/v1/models')).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('stores the checked model list and refuses models not on it', async () => {
    const created = await t.call('POST', api(), session, openaiBody({ model: undefined }));
    const id = created.body.connection.id;
    openai.setModels([{ id: 'gpt-small' }, { id: 'gpt-next', displayName: 'GPT Next' }]);
    const checked = await t.call('POST', api(`/${id}/test`), session);
    expect(checked.status).toBe(200);
    expect(checked.body.models).toEqual([{ id: 'gpt-small' }, { id: 'gpt-next', displayName: 'GPT Next' }]);
    expect(checked.body.connection.models).toEqual(['gpt-small', 'gpt-next']);

    // Created with a model the provider does not list: stored as an error, never replaced.
    const wrongModel = await t.call(
      'POST',
      api(),
      session,
      openaiBody({ name: 'wrong', model: 'gpt-imaginary' }),
    );
    expect(wrongModel.body.connection).toMatchObject({
      status: 'error',
      model: 'gpt-imaginary',
      lastError: { code: 'model_unavailable' },
    });

    const unknown = await t.call('PATCH', api(`/${id}`), session, { model: 'gpt-imaginary' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('model_unavailable');
    expect((await t.connections.get(id))?.model).toBeNull();
    const known = await t.call('PATCH', api(`/${id}`), session, { model: 'gpt-next' });
    expect(known.body.connection.model).toBe('gpt-next');

    // The model a turn gets is the chosen one, through the stored key.
    const model = await t.connections.languageModel(id);
    expect(model.modelId).toBe('gpt-next');
    const result = await model.doGenerate({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
    expect(result.content.length).toBeGreaterThan(0);
    expect(openai.requests.at(-1)?.headers.authorization).toBe(`Bearer ${apiKey}`);

    // Built once per connection: the next turn reuses it; any change builds a new one.
    expect(await t.connections.languageModel(id)).toBe(model);
    // (The fake accepts one key: storing it again is still a secret write.)
    const replaced = await t.call('POST', api(`/${id}/secret`), session, { apiKey });
    expect(replaced.status).toBe(200);
    const rebuilt = await t.connections.languageModel(id);
    expect(rebuilt).not.toBe(model);
    expect(await t.connections.languageModel(id)).toBe(rebuilt);
    await rebuilt.doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    expect(openai.requests.at(-1)?.headers.authorization).toBe(`Bearer ${apiKey}`);
    expect((await t.call('PATCH', api(`/${id}`), session, { name: 'renamed' })).status).toBe(200);
    expect(await t.connections.languageModel(id)).not.toBe(rebuilt);
  });

  it('keeps only the status in lastError when a base URL answers with some other service’s page', async () => {
    const secret = `internal-${randomBytes(8).toString('hex')}`;
    const page = http.createServer((_request, response) => {
      response.writeHead(404, { 'content-type': 'text/html' });
      response.end(`<html><body><h1>Intranet</h1><p>token ${secret}</p></body></html>`);
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = page.address() as AddressInfo;
      const created = await t.call(
        'POST',
        api(),
        session,
        openaiBody({ baseUrl: `http://127.0.0.1:${port}/v1` }),
      );
      expect(created.status).toBe(201);
      expect(created.body.connection.status).toBe('error');
      expect(created.body.connection.lastError).toEqual({
        code: 'provider_bad_response',
        message: 'openai answered HTTP 404',
      });
      const listed = await t.call('GET', api(), session);
      expect(JSON.stringify(listed.body)).not.toContain(secret);
    } finally {
      await new Promise<void>((resolve) => page.close(() => resolve()));
    }
  });

  it('marks an API-key connection `error` when the provider answers 401, and active again with a good key', async () => {
    const wrong = generatedSecret();
    const created = await t.call('POST', api(), session, openaiBody({ apiKey: wrong }));
    expect(created.status).toBe(201);
    expect(created.body.connection.status).toBe('error');
    expect(created.body.connection.lastError.code).toBe('provider_auth');
    expect(created.body.connection.models).toBeNull();

    const fixed = await t.call('POST', api(`/${created.body.connection.id}/secret`), session, { apiKey });
    expect(fixed.body.connection).toMatchObject({ status: 'active', lastError: null });

    const anthropic = await createFakeAnthropic({ apiKey, models: [{ id: 'claude-x' }] });
    try {
      const claude = await t.call('POST', api(), session, {
        provider: 'anthropic',
        name: 'claude',
        auth: 'api_key',
        apiKey,
        baseUrl: anthropic.url,
        model: 'claude-x',
      });
      expect(claude.body.connection.status).toBe('active');
      expect(anthropic.requests.at(-1)?.headers['x-api-key']).toBe(apiKey);
      // A 401 during a turn: API-key connections go to `error`.
      await t.connections.reportProviderError(
        claude.body.connection.id,
        new HalError('provider_auth', 'invalid x-api-key'),
      );
      expect((await t.connections.get(claude.body.connection.id))?.status).toBe('error');
    } finally {
      await anthropic.close();
    }
  });

  it('reports every validation problem as validation_failed with field issues', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [openaiBody({ name: 'doubled  space' }), 'name'],
      [openaiBody({ name: ' leading' }), 'name'],
      [openaiBody({ name: 'trailing ' }), 'name'],
      [openaiBody({ provider: 'nope' }), 'provider'],
      [openaiBody({ provider: 'other', baseUrl: undefined }), 'baseUrl'],
      [openaiBody({ baseUrl: 'http://user:pw@127.0.0.1/v1' }), 'baseUrl'],
      [openaiBody({ tools: { preset: 'everything' } }), 'tools.preset'],
      [
        openaiBody({ tools: { preset: 'custom', enabled: ['hal_servers_list', 'hal_nope'] } }),
        'tools.enabled.1',
      ],
      [{ provider: 'local-cli', name: 'x', auth: 'cli' }, 'cli.tool'],
      [openaiBody({ extra: true }), 'extra'],
    ];
    for (const [body, path] of cases) {
      const response = await t.call('POST', api(), session, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code).toBe('validation_failed');
      expect(response.body.error.issues.map((issue: { path: string }) => issue.path)).toContain(path);
      expect(response.text).not.toContain(apiKey);
    }
    expect((await t.call('GET', api(), session)).body.connections).toEqual([]);
  });

  it('tells listeners about creates, updates and deletes', async () => {
    const events: string[] = [];
    const off = t.connections.onChange((event) => events.push(`${event.type}:${event.connection.name}`));
    const created = await t.call('POST', api(), session, openaiBody());
    await t.call('DELETE', api(`/${created.body.connection.id}`), session);
    off();
    await t.call('POST', api(), session, openaiBody({ name: 'later' }));
    expect(events[0]).toBe('created:gpt');
    expect(events).toContain('updated:gpt');
    expect(events.at(-1)).toBe('deleted:gpt');
    expect(events.some((event) => event.endsWith(':later'))).toBe(false);
  });
});
