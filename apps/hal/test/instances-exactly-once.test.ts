import {
  createFakeAnthropic,
  createFakeOpenAI,
  type FakeRequest,
  type FakeServer,
  followLogin,
} from '@hal-ai/providers/testing';
import { HalError } from '@hal-ai/spec';
import { afterEach, expect, it } from 'vitest';
import {
  createTestAuthorizationServer,
  oauthGatewayBody,
  generatedSecret as secret,
} from '../src/ai/connections/connection-fakes.test-support.js';
import { createSessionStore, type SessionStore } from '../src/domain/auth/auth-sessions.js';
import type { ThreeStepInput } from '../src/platform/http/three-step.js';
import { sessionCookieFrom, type TestSession } from './foundation.test-support.js';
import {
  createTwinInstances,
  describeEachSharedDatabase,
  type TwinInstance,
  type TwinInstances,
} from './twin-instances.test-support.js';

// SPEC §15 "Exactly once across instances": what one instance decides, the other sees, and a race between
// the two has one winner. Every race below is split across two runtimes on one database.

let twins: TwinInstances | undefined;
const fakes: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await twins?.close();
  twins = undefined;
  for (const fake of fakes.splice(0)) await fake.close();
});

const chatRequests = (fake: FakeServer) =>
  fake.requests.filter((request: FakeRequest) => request.path.endsWith('/chat/completions'));
/** The model the last chat request to `fake` named. */
const lastModel = (fake: FakeServer) =>
  (chatRequests(fake).at(-1)?.body as { model?: string } | undefined)?.model;

async function threeStepToken(instance: TwinInstance, input: Omit<ThreeStepInput, 'confirmation'>) {
  try {
    await instance.runtime.threeStep.check({ ...input, confirmation: {} });
  } catch (error) {
    if (HalError.isInstance(error) && error.code === 'three_step_required') {
      return (error.details as { confirmToken: string }).confirmToken;
    }
    throw error;
  }
  throw new Error('the first step asked for no confirmation');
}

/** Two connections made on A (GPT over the OpenAI fake with two models, Claude over the Anthropic fake). */
async function connectModels(
  instance: TwinInstance,
  session: TestSession,
  respond: {
    gpt?: (request: FakeRequest) => { text: string };
    claude?: (request: FakeRequest) => { text: string };
  },
) {
  const keys = { gpt: secret(), claude: secret() };
  const gpt = await createFakeOpenAI({
    apiKey: keys.gpt,
    models: [{ id: 'gpt-test' }, { id: 'gpt-large' }],
    ...(respond.gpt ? { respond: respond.gpt } : {}),
  });
  fakes.push(gpt);
  const claude = await createFakeAnthropic({
    apiKey: keys.claude,
    models: [{ id: 'claude-test' }],
    ...(respond.claude ? { respond: respond.claude } : {}),
  });
  fakes.push(claude);
  const ids: Record<'gpt' | 'claude', string> = { gpt: '', claude: '' };
  for (const [key, body] of [
    ['gpt', { provider: 'openai', name: 'GPT', baseUrl: gpt.baseUrl, apiKey: keys.gpt, model: 'gpt-test' }],
    [
      'claude',
      {
        provider: 'anthropic',
        name: 'Claude',
        baseUrl: claude.url,
        apiKey: keys.claude,
        model: 'claude-test',
      },
    ],
  ] as const) {
    const created = await instance.call('POST', '/ops/api/ai/connections', session, {
      ...body,
      auth: 'api_key',
      identity: { role: `${body.name} reviewer`, traits: 'careful', instructions: 'answer briefly' },
      tools: { preset: 'read_only' },
    });
    expect(created.status).toBe(201);
    expect(created.body.connection.status).toBe('active');
    ids[key] = created.body.connection.id;
  }
  return { gpt, claude, ids };
}

async function roomsOf(instance: TwinInstance, session: TestSession) {
  const { body } = await instance.call('GET', '/ops/api/ai/rooms', session);
  const rooms = body.rooms as Array<{ id: string; kind: string; connectionId: string | null }>;
  return {
    unified: rooms.find((room) => room.kind === 'unified')?.id ?? '',
    direct: (connectionId: string) => rooms.find((room) => room.connectionId === connectionId)?.id ?? '',
  };
}

const post = (instance: TwinInstance, session: TestSession, roomId: string, text: string) =>
  instance.call('POST', `/ops/api/ai/rooms/${roomId}/messages`, session, { text });

const idle = async (t: TwinInstances) => {
  await t.a.runtime.ai.engine.idle();
  await t.b.runtime.ai.engine.idle();
};

describeEachSharedDatabase('exactly once across two instances', (dialect) => {
  it('a three-step token consumed on both at once lets exactly one request through', async () => {
    twins = await createTwinInstances(dialect);
    const { a, b } = twins;
    const { id: operatorId } = await a.runtime.db
      .selectFrom('operators')
      .select('id')
      .executeTakeFirstOrThrow();
    for (let round = 0; round < 10; round++) {
      const input = {
        operatorId,
        action: 'server.delete',
        target: `server:srv-${round}`,
        impact: { server: `srv-${round}` },
        identifiers: [`srv-${round}`],
      };
      const token = await threeStepToken(a, input);
      const confirmation = {
        confirmToken: token,
        confirmImpact: true,
        confirmIdentifiers: [`srv-${round}`],
        confirmExecute: true,
      };
      const outcomes = await Promise.allSettled([
        a.runtime.threeStep.check({ ...input, confirmation }),
        b.runtime.threeStep.check({ ...input, confirmation }),
      ]);
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.find((outcome) => outcome.status === 'rejected');
      expect(HalError.isInstance(refused?.reason) && refused.reason.code).toBe('three_step_required');
    }
  });

  it('an OAuth state is spent once: of two callbacks racing on A and B, one logs in', async () => {
    twins = await createTwinInstances(dialect);
    const { a, b } = twins;
    const session = await a.login();
    // Both instances build the same callback URL from the same config.
    const auth = await createTestAuthorizationServer();
    fakes.push(auth);
    const anthropic = await createFakeAnthropic({ models: [{ id: 'claude-gw' }] });
    fakes.push(anthropic);
    const created = await a.call(
      'POST',
      '/ops/api/ai/connections',
      session,
      oauthGatewayBody('anthropic', anthropic.url, auth),
    );
    expect(created.status).toBe(201);
    const started = await a.call(
      'POST',
      `/ops/api/ai/connections/${created.body.connection.id}/oauth/start`,
      session,
    );
    expect(started.status).toBe(200);
    const back = await followLogin(started.body.authorizeUrl);
    const callback = (instance: TwinInstance) =>
      instance.request(`${back.pathname}${back.search}`, { session }).then((response) => response.status);
    const statuses = await Promise.all([callback(a), callback(b)]);
    expect(statuses.sort()).toEqual([200, 400]);
    expect(auth.calls.authorization_code).toBe(1);
    const listed = await b.call('GET', '/ops/api/ai/connections', session);
    expect(listed.body.connections[0].secret).toMatchObject({ hasToken: true });
  });

  it('concurrent wrong passwords split across A and B share one counter, and the limit holds', async () => {
    twins = await createTwinInstances(dialect);
    const { a, b, username, password } = twins;
    const attempts = Array.from({ length: 20 }, (_, index) =>
      (index % 2 === 0 ? a : b)
        .request('/ops/login', { method: 'POST', json: { username, password: `wrong-${secret()}` } })
        .then(async (response) => ({
          status: response.status,
          code: ((await response.json()) as { error?: { code: string } }).error?.code,
        })),
    );
    const outcomes = await Promise.all(attempts);
    // The default limit: 5 attempts per username and address in the window, wherever they land.
    expect(outcomes.filter((outcome) => outcome.code === 'invalid_credentials')).toHaveLength(5);
    expect(outcomes.filter((outcome) => outcome.status === 429)).toHaveLength(15);
    for (const instance of [a, b]) {
      const right = await instance.request('/ops/login', { method: 'POST', json: { username, password } });
      expect(right.status).toBe(429);
    }
  });

  it('a session made on A works on B, a logout on B ends it on A, and a re-auth race rotates it once', async () => {
    twins = await createTwinInstances(dialect);
    const { a, b, password } = twins;
    const session = await a.login();
    const seen = await b.call('GET', '/ops/api/session', session);
    expect(seen.status).toBe(200);
    expect(seen.body.operator.username).toBe(twins.username);
    expect(seen.body.csrfToken).toBe(session.csrfToken);

    // Re-auth from two tabs at once, one on each instance: the old cookie is replaced by exactly one new one.
    const reauths = await Promise.all(
      [a, b].map((instance) =>
        instance.request('/ops/api/reauth', { method: 'POST', session, json: { password } }),
      ),
    );
    const rotated = reauths.filter((response) => response.status === 200);
    expect(rotated).toHaveLength(1);
    expect(reauths.find((response) => response.status !== 200)?.status).toBe(401);
    const renewed = { ...session, cookie: sessionCookieFrom(rotated[0] as Response) ?? '' };
    for (const instance of [a, b]) {
      expect((await instance.call('GET', '/ops/api/session', session)).status).toBe(401);
      expect((await instance.call('GET', '/ops/api/session', renewed)).status).toBe(200);
    }
    const rows = await a.runtime.db.selectFrom('sessions').select('id').execute();
    expect(rows).toHaveLength(1);

    const logout = await b.request('/ops/logout', { method: 'POST', session: renewed });
    expect(logout.status).toBe(204);
    expect((await a.call('GET', '/ops/api/session', renewed)).status).toBe(401);
  });

  it('the same session re-authenticated by both stores at once is replaced by one session, not two', async () => {
    twins = await createTwinInstances(dialect);
    const { a, b, clock } = twins;
    const operator = await a.runtime.db
      .selectFrom('operators')
      .select(['id', 'username'])
      .executeTakeFirstOrThrow();
    const stores = [a, b].map((instance) =>
      createSessionStore({ db: instance.runtime.db, clock, reauthWindowS: 600 }),
    );
    for (let round = 0; round < 10; round++) {
      const opened = await (stores[0] as SessionStore).open(operator);
      const renewed = await Promise.all(stores.map((store) => store.reauthenticate(opened.id)));
      expect(renewed.filter((session) => session !== null)).toHaveLength(1);
      const rows = await a.runtime.db.selectFrom('sessions').select('id').execute();
      expect(rows.map((row) => row.id)).toEqual([renewed.find((session) => session !== null)?.id]);
      await a.runtime.db.deleteFrom('sessions').execute();
    }
  });

  it('a reply that mentions another model relays once, with both instances live', async () => {
    twins = await createTwinInstances(dialect);
    const { a, b } = twins;
    const session = await a.login();
    const { gpt, claude } = await connectModels(a, session, {
      claude: () => ({ text: 'The disk looks fine. @GPT, please check the jobs.' }),
      gpt: () => ({ text: 'The jobs are fine.' }),
    });
    const { unified } = await roomsOf(a, session);
    expect((await post(a, session, unified, '@Claude how is the disk?')).status).toBe(202);
    await idle(twins);
    // B sees the room as A wrote it, and started nothing of its own.
    const { body } = await b.call('GET', `/ops/api/ai/rooms/${unified}/messages?after=0`, session);
    const replies = body.messages.filter((message: { role: string }) => message.role === 'assistant');
    expect(replies.map((message: { relayDepth: number }) => message.relayDepth)).toEqual([0, 1]);
    expect(chatRequests(gpt)).toHaveLength(1);
    expect(claude.requests.filter((request) => request.path.endsWith('/messages'))).toHaveLength(1);
    expect(body.pending).toBe(0);
  });

  it('/model and a disable on B are what A uses next', async () => {
    twins = await createTwinInstances(dialect);
    const { a, b } = twins;
    const session = await a.login();
    const { gpt, ids } = await connectModels(a, session, { gpt: () => ({ text: 'ok' }) });
    const direct = (await roomsOf(a, session)).direct(ids.gpt);
    expect((await post(a, session, direct, 'first')).status).toBe(202);
    await idle(twins);
    expect(lastModel(gpt)).toBe('gpt-test');

    const switched = await post(b, session, direct, '/model gpt-large');
    expect(switched.status).toBe(202);
    expect((await post(a, session, direct, 'second')).status).toBe(202);
    await idle(twins);
    expect(lastModel(gpt)).toBe('gpt-large');

    const disabled = await b.call('PATCH', `/ops/api/ai/connections/${ids.gpt}`, session, {
      status: 'disabled',
    });
    expect(disabled.status).toBe(200);
    const refused = await post(a, session, direct, 'third');
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('connection_inactive');
    expect(chatRequests(gpt)).toHaveLength(2);
  });

  it('/reset on B clears the history A sends next', async () => {
    twins = await createTwinInstances(dialect);
    const { a, b } = twins;
    const session = await a.login();
    const { gpt, ids } = await connectModels(a, session, { gpt: () => ({ text: 'noted' }) });
    const direct = (await roomsOf(a, session)).direct(ids.gpt);
    const remembered = `remember ${secret()}`;
    await post(a, session, direct, remembered);
    await idle(twins);
    expect(JSON.stringify(chatRequests(gpt).at(-1)?.body)).toContain(remembered);

    const reset = await post(b, session, direct, '/reset');
    expect(reset.status).toBe(202);
    const after = await a.call('GET', `/ops/api/ai/rooms/${direct}/messages?after=0`, session);
    expect(JSON.stringify(after.body.messages)).not.toContain(remembered);
    await post(a, session, direct, 'what did I ask you to remember?');
    await idle(twins);
    expect(JSON.stringify(chatRequests(gpt).at(-1)?.body)).not.toContain(remembered);
  });
});
