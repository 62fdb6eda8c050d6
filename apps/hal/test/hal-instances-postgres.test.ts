import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createFakeOpenAI, type FakeRequest, type FakeServer } from '@hal-ai/providers/testing';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Frame, frameReader } from '../src/ai/rooms/sse-frames.test-support.js';
import {
  createMigratedPostgresTestDatabase,
  describePostgres,
  type PostgresTestDatabase,
} from '../src/platform/db/database-postgres.test-support.js';
import { ensureBuilt, type HalProcess, startHalProcess } from './hal-serve.test-support.js';

// SPEC §15 with real processes: two (then three) built `hal serve` on one PostgreSQL database and one data folder,
// one fake provider on 127.0.0.1. Each test builds on what the ones before left (the same instances and rooms).

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON response bodies loosely.
type LooseJson = any;

interface Session {
  cookie: string;
  csrfToken: string;
}

/** The last operator text of a chat request (what decides how the fake answers). */
const lastUserText = (request: FakeRequest) => {
  const messages = (request.body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
  const last = [...messages].reverse().find((message) => message.role === 'user');
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
};

const assistantDone = (frames: Frame[]) =>
  frames.some((frame) => {
    const message = frame.event === 'message' ? JSON.parse(frame.data ?? '{}').message : undefined;
    return message?.role === 'assistant' && message.status === 'complete';
  });

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never happened: ${what}`);
}

describePostgres('two hal serve processes on one database', () => {
  let database: PostgresTestDatabase;
  let dataDir: string;
  let fake: FakeServer;
  let apiKey: string;
  let env: Record<string, string>;
  const running: HalProcess[] = [];
  let a: HalProcess;
  let b: HalProcess;
  let sessionA: Session;
  let sessionB: Session;
  let gptRoom: string;

  const call = async (
    instance: HalProcess,
    session: Session,
    method: string,
    pathname: string,
    json?: unknown,
  ): Promise<{ status: number; body: LooseJson }> => {
    const response = await fetch(`${instance.url}${pathname}`, {
      method,
      headers: {
        cookie: session.cookie,
        'x-csrf-token': session.csrfToken,
        ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  const login = async (instance: HalProcess, password: string): Promise<Session> => {
    const response = await fetch(`${instance.url}/ops/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    expect(response.status).toBe(200);
    const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] as string;
    return { cookie, csrfToken: ((await response.json()) as { csrfToken: string }).csrfToken };
  };
  const start = async () => {
    const started = await startHalProcess(dataDir, env);
    running.push(started);
    return started;
  };
  const sql = async <Row>(text: string, values: unknown[] = []): Promise<Row[]> => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query(text, values)).rows as Row[];
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    ensureBuilt();
    database = await createMigratedPostgresTestDatabase();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-instances-pg-'));
    apiKey = randomBytes(24).toString('base64url');
    fake = await createFakeOpenAI({
      apiKey,
      models: [{ id: 'gpt-test' }],
      // "hold" questions stall (a turn that stays running); "slow" ones stream a piece every 50 ms for 20 s (a turn
      // that keeps sending deltas); the others answer in pieces.
      respond: (request) => {
        const text = lastUserText(request);
        if (text.includes('hold')) return { stall: 'before-first-byte' };
        if (text.includes('slow')) return { text: 'slowly '.repeat(400), chunks: 400, chunkDelayMs: 50 };
        return { text: 'An answer streamed in several pieces.', chunks: 4 };
      },
    });
    env = {
      HAL_DATABASE_URL: database.url,
      // The same vault key on every instance (SPEC §15).
      HAL_VAULT_KEY: randomBytes(32).toString('base64'),
      HAL_LOG_LEVEL: 'warn',
    };
    a = await start();
    const password = /^password: (\S+)$/m.exec(a.stdout())?.[1] as string;
    expect(password).toBeTruthy();
    b = await start();
    // The operator exists already: B prints no password.
    expect(b.stdout()).not.toMatch(/^password:/m);
    sessionA = await login(a, password);
    sessionB = await login(b, password);
    const created = await call(a, sessionA, 'POST', '/ops/api/ai/connections', {
      provider: 'openai',
      name: 'GPT',
      auth: 'api_key',
      baseUrl: fake.baseUrl,
      apiKey,
      model: 'gpt-test',
    });
    expect(created.status).toBe(201);
    gptRoom = (await call(b, sessionB, 'GET', '/ops/api/ai/rooms')).body.rooms[1].id;
  }, 600_000);

  afterAll(async () => {
    for (const instance of running) await instance.stop();
    await fake?.close();
    await database?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  it('a session created on A works on B', async () => {
    const onB = await call(b, sessionA, 'GET', '/ops/api/session');
    expect(onB.status).toBe(200);
    expect(onB.body.operator).toMatchObject({ username: 'admin' });
    // And B's connection list is what A created (one database).
    expect((await call(b, sessionA, 'GET', '/ops/api/ai/connections')).body.connections).toHaveLength(1);
  });

  it('a message posted on A streams on a panel of B, deltas included, and A’s cursor resumes on B', async () => {
    const open = (instance: HalProcess, lastEventId?: string) =>
      fetch(`${instance.url}/ops/api/ai/rooms/${gptRoom}/events`, {
        headers: { cookie: sessionA.cookie, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      });
    const panelOfB = frameReader(await open(b));
    const panelOfA = frameReader(await open(a));
    expect(
      (await call(a, sessionA, 'POST', `/ops/api/ai/rooms/${gptRoom}/messages`, { text: 'first' })).status,
    ).toBe(202);
    const frames = await panelOfB.until(assistantDone);
    const types = new Set(frames.map((frame) => frame.event));
    expect(types).toEqual(new Set(['message', 'delta', 'turn']));
    const streamed = frames
      .filter((frame) => frame.event === 'delta')
      .map((frame) => JSON.parse(frame.data ?? '{}').text)
      .join('');
    expect(streamed).toBe('An answer streamed in several pieces.');
    for (const frame of frames) expect(frame.id).toMatch(/^[0-9a-z]{10}:\d+(,[0-9a-z]{10}:\d+)*$/);
    await panelOfB.cancel();

    // The panel of A disconnects; the next exchange runs on B; the panel comes back on B with A's last id.
    const seenOnA = await panelOfA.until(assistantDone);
    await panelOfA.until((list) =>
      list.some((frame) => frame.event === 'turn' && JSON.parse(frame.data ?? '{}').status === 'complete'),
    );
    const cursor = panelOfA.frames.at(-1)?.id as string;
    expect(seenOnA.length).toBeGreaterThan(0);
    await panelOfA.cancel();
    await call(b, sessionB, 'POST', `/ops/api/ai/rooms/${gptRoom}/messages`, { text: 'second' });
    await eventually(
      () => call(b, sessionB, 'GET', `/ops/api/ai/rooms/${gptRoom}/messages?after=0`),
      (page) => page.body.pending === 0 && page.body.messages.length === 4,
      'the second exchange',
    );
    const resumed = frameReader(await open(b, cursor));
    const replay = await resumed.until(assistantDone);
    await resumed.cancel();
    expect(replay.some((frame) => frame.event === 'resync')).toBe(false);
    const replayedMessages = replay
      .filter((frame) => frame.event === 'message')
      .map((frame) => JSON.parse(frame.data ?? '{}').message);
    // Only the second exchange, each message's last state once per publication; nothing of the first.
    expect(replayedMessages.some((message) => JSON.stringify(message.content).includes('second'))).toBe(true);
    expect(replayedMessages.some((message) => JSON.stringify(message.content).includes('first'))).toBe(false);
    const replayDeltas = replay.filter((frame) => frame.event === 'delta');
    expect(replayDeltas.map((frame) => JSON.parse(frame.data ?? '{}').text).join('')).toBe(
      'An answer streamed in several pieces.',
    );
  });

  it('50 parallel approvals of one proposal split across both: one execution, 49 × 409 action_not_pending', async () => {
    fake.enqueue(
      {
        toolCall: {
          name: 'hal_incident_open',
          input: { key: 'race.once', title: 'Race', severity: 'minor' },
        },
      },
      { text: 'Proposed.' },
    );
    await call(a, sessionA, 'POST', `/ops/api/ai/rooms/${gptRoom}/messages`, { text: 'open an incident' });
    const page = await eventually(
      () => call(a, sessionA, 'GET', `/ops/api/ai/rooms/${gptRoom}/messages?after=0`),
      (current) =>
        current.body.pending === 0 && current.body.actions.some((x: LooseJson) => x.status === 'proposed'),
      'the proposal',
    );
    const action = page.body.actions.find((x: LooseJson) => x.status === 'proposed');
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        index % 2 === 0
          ? call(a, sessionA, 'POST', `/ops/api/ai/actions/${action.id}/approve`, {})
          : call(b, sessionB, 'POST', `/ops/api/ai/actions/${action.id}/approve`, {}),
      ),
    );
    const won = answers.filter((answer) => answer.status === 200);
    expect(won).toHaveLength(1);
    expect(won[0]?.body.action).toMatchObject({ id: action.id, status: 'executed' });
    const lost = answers.filter((answer) => answer.status !== 200);
    expect(lost.map((answer) => `${answer.status} ${answer.body.error?.code}`)).toEqual(
      Array.from({ length: 49 }, () => '409 action_not_pending'),
    );
    const incidents = (await call(b, sessionB, 'GET', '/ops/api/hal/incidents')).body.incidents;
    expect(incidents.filter((incident: LooseJson) => incident.key === 'race.once')).toHaveLength(1);
  });

  it('jobs queued on A run once each, on whichever instance claimed them', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 6; index += 1) {
      // Reconciling every server is a high action: the three steps, both on A.
      const asked = await call(a, sessionA, 'POST', '/ops/api/hal/deployments/reconcile', {});
      expect(asked.body.error).toMatchObject({ code: 'three_step_required' });
      const { confirmToken, identifiers } = asked.body.error;
      const queued = await call(a, sessionA, 'POST', '/ops/api/hal/deployments/reconcile', {
        confirmToken,
        confirmImpact: true,
        confirmIdentifiers: identifiers,
        confirmExecute: true,
      });
      expect(queued.status).toBe(202);
      ids.push(queued.body.job.id);
    }
    for (const id of ids) {
      await eventually(
        () => call(b, sessionB, 'GET', `/ops/api/hal/jobs/${id}`),
        (job) => ['succeeded', 'failed'].includes(job.body.job?.state),
        `job ${id} ends`,
      );
    }
    const rows = await sql<{ id: string; attempts: string; instance_id: string }>(
      'SELECT id, attempts, instance_id FROM jobs WHERE id = ANY($1)',
      [ids],
    );
    const instances = await sql<{ id: string }>(`SELECT id FROM hal_instances WHERE kind = 'serve'`);
    expect(rows).toHaveLength(6);
    for (const row of rows) {
      // bigint comes back as text from a plain pg client.
      expect(Number(row.attempts)).toBe(1);
      expect(instances.map((instance) => instance.id)).toContain(row.instance_id);
    }
  });

  // A turn streaming on A, stopped from B: it ends `cancelled` on both panels as a local cancel ends it, with its
  // placeholder finished, and no delta of it follows. Returns once a later exchange in the room completed on both
  // panels — had A's stream gone on, its deltas (one every 50 ms) would be among that exchange's frames.
  const stopFromB = async (stop: () => Promise<void>) => {
    const open = (instance: HalProcess) =>
      fetch(`${instance.url}/ops/api/ai/rooms/${gptRoom}/events`, { headers: { cookie: sessionA.cookie } });
    const panels = [frameReader(await open(a)), frameReader(await open(b))];
    const posted = await call(a, sessionA, 'POST', `/ops/api/ai/rooms/${gptRoom}/messages`, {
      text: 'slow, please',
    });
    expect(posted.status).toBe(202);
    const turnId = posted.body.turns[0].turnId as string;
    const data = (frame: Frame): LooseJson => JSON.parse(frame.data ?? '{}');
    for (const panel of panels)
      await panel.until((frames) => frames.filter((f) => f.event === 'delta').length >= 3);
    const messageId = data(panels[0]?.frames.find((frame) => frame.event === 'delta') as Frame).messageId;
    await stop();
    const ended = (frame: Frame) =>
      frame.event === 'turn' && data(frame).turnId === turnId && data(frame).status !== 'running';
    for (const panel of panels) await panel.until((frames) => frames.some(ended));
    const [row] = await sql<{ status: string }>('SELECT status FROM ai_turns WHERE id = $1', [turnId]);
    expect(row?.status).toBe('cancelled');
    await call(b, sessionB, 'POST', `/ops/api/ai/rooms/${gptRoom}/messages`, { text: 'after the stop' });
    for (const panel of panels) {
      const frames = await panel.until(assistantDone);
      await panel.cancel();
      const end = frames.findIndex(ended);
      expect(data(frames[end] as Frame).status).toBe('cancelled');
      // The placeholder was finished: its partial text kept, with the error, as a local cancel leaves it.
      const finished = frames.filter(
        (frame) => frame.event === 'message' && data(frame).message.id === messageId,
      );
      expect(finished.at(-1) && data(finished.at(-1) as Frame).message).toMatchObject({
        status: 'incomplete',
        error: { code: 'interrupted' },
      });
      const late = frames
        .slice(end)
        .filter((frame) => frame.event === 'delta' && data(frame).messageId === messageId);
      expect(late).toEqual([]);
      expect(frames.slice(end).some((frame) => frame.event === 'delta')).toBe(true);
    }
  };

  it('a /reset posted on B stops the turn A is streaming in that room', async () => {
    await stopFromB(async () => {
      const reset = await call(b, sessionB, 'POST', `/ops/api/ai/rooms/${gptRoom}/messages`, {
        text: '/reset',
      });
      expect(reset.status).toBe(202);
      // The reset waited for A's turn: the room holds only the reset and its note, no half-answer.
      const page = await call(b, sessionB, 'GET', `/ops/api/ai/rooms/${gptRoom}/messages?after=0`);
      expect(page.body.pending).toBe(0);
      expect(page.body.messages.map((message: LooseJson) => message.role)).toEqual(['user', 'system']);
    });
  });

  it('disabling the connection on B stops the turn A is streaming for it', async () => {
    const connectionId = (await call(b, sessionB, 'GET', '/ops/api/ai/connections')).body.connections[0].id;
    await stopFromB(async () => {
      const disabled = await call(b, sessionB, 'PATCH', `/ops/api/ai/connections/${connectionId}`, {
        status: 'disabled',
      });
      expect(disabled.body.connection?.status).toBe('disabled');
      await eventually(
        () => call(b, sessionB, 'GET', `/ops/api/ai/rooms/${gptRoom}/messages?after=0`),
        (page) => page.body.pending === 0,
        'no running turn left',
      );
      const enabled = await call(b, sessionB, 'PATCH', `/ops/api/ai/connections/${connectionId}`, {
        status: 'active',
      });
      expect(enabled.body.connection?.status).toBe('active');
    });
  });

  it('SIGKILL of A mid-turn: a third instance marks A’s turn interrupted and leaves B’s running turn alone', async () => {
    // A second connection, so B's turn runs in a room of its own while A's is stuck.
    const other = await call(b, sessionB, 'POST', '/ops/api/ai/connections', {
      provider: 'openai',
      name: 'GPT2',
      auth: 'api_key',
      baseUrl: fake.baseUrl,
      apiKey,
      model: 'gpt-test',
    });
    expect(other.status).toBe(201);
    const otherRoom = (await call(b, sessionB, 'GET', '/ops/api/ai/rooms')).body.rooms[2].id;
    await call(a, sessionA, 'POST', `/ops/api/ai/rooms/${gptRoom}/messages`, { text: 'hold on A' });
    await call(b, sessionB, 'POST', `/ops/api/ai/rooms/${otherRoom}/messages`, { text: 'hold on B' });
    for (const room of [gptRoom, otherRoom]) {
      await eventually(
        () => call(b, sessionB, 'GET', `/ops/api/ai/rooms/${room}/messages?after=0`),
        (page) => page.body.pending === 1,
        `a running turn in ${room}`,
      );
    }
    await a.kill9();
    const c = await start();
    const rows = await sql<{ room_id: string; status: string }>(
      `SELECT room_id, status FROM ai_turns WHERE room_id = ANY($1) AND status IN ('running', 'interrupted')`,
      [[gptRoom, otherRoom]],
    );
    expect(rows.filter((row) => row.room_id === gptRoom).map((row) => row.status)).toEqual(['interrupted']);
    expect(rows.filter((row) => row.room_id === otherRoom).map((row) => row.status)).toEqual(['running']);
    // As the console shows it, from the new instance.
    const stuck = await call(c, sessionB, 'GET', `/ops/api/ai/rooms/${gptRoom}/messages?after=0`);
    expect(stuck.body.pending).toBe(0);
    expect(stuck.body.messages.at(-1)).toMatchObject({
      role: 'assistant',
      status: 'failed',
      error: { code: 'interrupted' },
    });
    const alive = await call(c, sessionB, 'GET', `/ops/api/ai/rooms/${otherRoom}/messages?after=0`);
    expect(alive.body.pending).toBe(1);
    expect(alive.body.messages.at(-1)).toMatchObject({ role: 'assistant', status: 'streaming' });
  });
});
