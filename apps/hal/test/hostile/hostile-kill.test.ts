import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createFakeOpenAI,
  type FakeRequest,
  type FakeServer,
  type FakeStep,
} from '@hal-ai/providers/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeOpenAIConnection } from '../fake-connection.test-support.js';
import { recordFigures } from './hostile-figures.test-support.js';
import {
  type ChildSession,
  type HalChild,
  holdAt,
  reached,
  readDatabase,
  signIn,
  startHalChild,
  until,
} from './hostile-kill.test-support.js';

// One data folder through five lives of a real `hal serve`: each scenario holds the process at a marked point,
// kills it with SIGKILL and starts it again at once (no waiting for its heartbeat to age), then checks that
// nothing is left half-done.
let root: string;
let dataDir: string;
let pauseDir: string;
let fake: FakeServer;
let apiKey: string;
let hal: HalChild;
let session: ChildSession;
let password: string;
let roomId: string;

async function restart(): Promise<void> {
  await hal.kill9();
  for (const name of fs.readdirSync(pauseDir)) fs.rmSync(path.join(pauseDir, name));
  hal = await startHalChild(dataDir, pauseDir);
  session = await signIn(hal.url, password);
}

/** Files in `dr/` that no snapshot row names (a partial copy, a journal): must be none after a restart. */
function strayDrFiles(): string[] {
  const dir = path.join(dataDir, 'dr');
  if (!fs.existsSync(dir)) return [];
  const known = new Set(
    readDatabase(
      dataDir,
      (db) => db.prepare('select path from dr_snapshots').all() as Array<{ path: string }>,
    ).map((row) => path.basename(row.path)),
  );
  return fs.readdirSync(dir).filter((name) => !known.has(name));
}

function count(sql: string, ...params: unknown[]): number {
  return readDatabase(dataDir, (db) => (db.prepare(sql).get(...params) as { n: number }).n);
}

/** 1 when the operator's message containing `text` is not stored exactly once in the room after a restart. */
function operatorMessageLost(text: string): number {
  const stored = count(
    "select count(*) as n from ai_messages where room_id = ? and role = 'user' and content_json like ?",
    roomId,
    `%${text}%`,
  );
  return stored === 1 ? 0 : 1;
}

/** The scripted answer to the conversation's newest message (a tool result gets a short text). */
function answerFor(request: FakeRequest): FakeStep {
  const messages = (request.body as { messages?: Array<{ role: string; content: unknown }> })?.messages ?? [];
  if (messages.at(-1)?.role === 'tool') return { text: 'noted' };
  const said = JSON.stringify(messages.filter((message) => message.role === 'user').at(-1)?.content ?? '');
  if (said.includes('take a snapshot')) return { toolCall: { name: 'hal_dr_snapshot', input: {} } };
  if (said.includes('hello')) {
    return { text: 'the first words of an answer that never ends', chunks: 4, stall: 'mid-stream' };
  }
  return { text: 'noted' };
}

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-hostile-kill-'));
  dataDir = path.join(root, 'data');
  pauseDir = path.join(root, 'pauses');
  fs.mkdirSync(pauseDir);
  apiKey = randomBytes(24).toString('base64url');
  // Answers by what the operator just said, not from a queue: a request the restarted HAL makes earlier or later
  // than expected cannot take another test's scripted answer (a FIFO made mid-approval wait forever on CI).
  fake = await createFakeOpenAI({ apiKey, models: [{ id: 'gpt-test' }], respond: answerFor });
  hal = await startHalChild(dataDir, pauseDir);
  password = hal.password ?? '';
  session = await signIn(hal.url, password);
  const created = await session.call(
    'POST',
    '/ops/api/ai/connections',
    fakeOpenAIConnection(fake.baseUrl, apiKey, { tools: { preset: 'all' } }),
  );
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  roomId = await until(async () => {
    const rooms = (await session.call('GET', '/ops/api/ai/rooms')).body.rooms as Array<{
      id: string;
      title: string;
    }>;
    return rooms.find((room) => room.title === 'GPT')?.id;
  });
  // The first call builds dist/ when it is older than the sources (CI builds first): minutes on a loaded machine.
}, 600_000);

afterAll(async () => {
  await hal?.kill9();
  await fake?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('hostile: kill -9 at marked points', () => {
  it('mid-stream: the turn is interrupted and its half-written reply failed, not left streaming', async (context) => {
    // The fake sends the first pieces of its answer and then holds the stream open.
    const sent = await session.call('POST', `/ops/api/ai/rooms/${roomId}/messages`, { text: 'hello' });
    expect(sent.status).toBe(202);
    const turnId = sent.body.turns[0].turnId as string;
    await until(() =>
      count("select count(*) as n from ai_messages where room_id = ? and status = 'streaming'", roomId) > 0
        ? true
        : undefined,
    );
    await restart();
    const turn = readDatabase(dataDir, (db) =>
      db.prepare('select status from ai_turns where id = ?').get(turnId),
    ) as {
      status: string;
    };
    const halfDone =
      (turn.status === 'interrupted' ? 0 : 1) +
      count("select count(*) as n from ai_turns where status = 'running'") +
      count("select count(*) as n from ai_messages where status = 'streaming'");
    // The operator's message was stored before the kill: the restart must not take it away.
    const messagesLost = operatorMessageLost('hello');
    recordFigures(context, 'kill -9 at marked points', {
      tried: 0,
      refused: 0,
      kills: 1,
      halfDone,
      messagesLost,
    });
    expect(turn.status).toBe('interrupted');
    expect(messagesLost).toBe(0);
    expect(halfDone).toBe(0);
  }, 120_000);

  it('mid-approval: an approved snapshot cut while it runs is executed once or not at all, never left executing', async (context) => {
    const sent = await session.call('POST', `/ops/api/ai/rooms/${roomId}/messages`, {
      text: 'take a snapshot',
    });
    expect(sent.status).toBe(202);
    const actionId = await until(
      () =>
        readDatabase(dataDir, (db) =>
          db
            .prepare("select id from ai_actions where tool = 'hal_dr_snapshot' and status = 'proposed'")
            .get(),
        ) as { id: string } | undefined,
    );
    holdAt(pauseDir, 'dr-snapshot-written');
    session.fire('POST', `/ops/api/ai/actions/${actionId.id}/approve`, {});
    await reached(pauseDir, 'dr-snapshot-written');
    // Held with the action executing and a partial copy on disk.
    expect(
      readDatabase(dataDir, (db) =>
        db.prepare('select status from ai_actions where id = ?').get(actionId.id),
      ),
    ).toEqual({
      status: 'executing',
    });
    expect(strayDrFiles().length).toBeGreaterThan(0);
    await restart();
    const { status } = readDatabase(dataDir, (db) =>
      db.prepare('select status from ai_actions where id = ?').get(actionId.id),
    ) as { status: string };
    const snapshots = count('select count(*) as n from dr_snapshots');
    const halfDone =
      (status === 'executing' ? 1 : 0) +
      // Executed exactly once, or not at all: the record and the effect agree.
      (status === 'executed' ? Math.abs(snapshots - 1) : snapshots) +
      strayDrFiles().length;
    const messagesLost = operatorMessageLost('take a snapshot');
    recordFigures(context, 'kill -9 at marked points', {
      tried: 0,
      refused: 0,
      kills: 1,
      halfDone,
      messagesLost,
      badExecutions: Math.max(0, snapshots - 1),
    });
    expect(['failed', 'proposed', 'executed']).toContain(status);
    expect(messagesLost).toBe(0);
    expect(halfDone).toBe(0);
  }, 120_000);

  it('mid-snapshot: a console snapshot cut before its rename leaves no file behind', async (context) => {
    const before = count('select count(*) as n from dr_snapshots');
    holdAt(pauseDir, 'dr-snapshot-written');
    session.fire('POST', '/ops/api/hal/dr/snapshots');
    await reached(pauseDir, 'dr-snapshot-written');
    expect(strayDrFiles().some((name) => name.startsWith('.partial-'))).toBe(true);
    await restart();
    const halfDone =
      strayDrFiles().length + Math.abs(count('select count(*) as n from dr_snapshots') - before);
    recordFigures(context, 'kill -9 at marked points', { tried: 0, refused: 0, kills: 1, halfDone });
    expect(strayDrFiles()).toEqual([]);
    expect(halfDone).toBe(0);
    // The next snapshot works as usual.
    expect((await session.call('POST', '/ops/api/hal/dr/snapshots')).status).toBe(201);
    expect(strayDrFiles()).toEqual([]);
  }, 120_000);

  it('mid-job: a job cut in a step is interrupted, once, and not run again', async (context) => {
    holdAt(pauseDir, 'job-step-running');
    const queued = await session.call('POST', '/ops/api/hal/deployments/health', {
      module: 'portal',
      serverId: 'srv_local',
    });
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    const jobId = queued.body.job.id as string;
    await reached(pauseDir, 'job-step-running');
    expect(
      readDatabase(dataDir, (db) => db.prepare('select state from jobs where id = ?').get(jobId)),
    ).toEqual({
      state: 'running',
    });
    await restart();
    const job = readDatabase(dataDir, (db) =>
      db.prepare('select state, error, attempts from jobs where id = ?').get(jobId),
    ) as {
      state: string;
      error: string | null;
      attempts: number;
    };
    const halfDone =
      (job.state === 'failed' && JSON.parse(job.error ?? '{}').code === 'interrupted' ? 0 : 1) +
      count("select count(*) as n from jobs where state in ('running', 'queued')") +
      count("select count(*) as n from job_steps where state = 'running'");
    const duplicates =
      count("select count(*) as n from jobs where type = 'module_health'") - 1 + (job.attempts - 1);
    recordFigures(context, 'kill -9 at marked points', {
      tried: 0,
      refused: 0,
      kills: 1,
      halfDone,
      badExecutions: duplicates,
    });
    expect(job.state).toBe('failed');
    expect(halfDone).toBe(0);
    expect(duplicates).toBe(0);
  }, 120_000);
});
