import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createRoomTestApp,
  eventually,
  type RoomTestApp,
  testConnectionBody,
} from '../rooms/room-app.test-support.js';
import { enqueueConcludingDebate } from './debate-script.test-support.js';
import { createFakeWiki, type FakeWiki } from './debate-wiki-fake.test-support.js';

const ai = (p: string) => `/ops/api/ai${p}`;

let t: RoomTestApp;
let wiki: FakeWiki;
let token: string;
let logged: string;
/** Retries the publisher scheduled: the test fires them itself (no timed waits). */
let retries: { delayMs: number; run: () => void; cancelled: boolean }[];

async function setUp() {
  token = `wiki-${randomBytes(24).toString('base64url')}`;
  wiki = await createFakeWiki({ token });
  logged = '';
  retries = [];
  t = await createRoomTestApp({
    log: (line) => {
      logged += line;
    },
    wiki: {
      schedule(run, delayMs) {
        const entry = { delayMs, run, cancelled: false };
        retries.push(entry);
        return () => {
          entry.cancelled = true;
        };
      },
    },
  });
  // A settings change is a confirmed operation on the console; the core function is what it runs.
  await t.deps.core.settings.set('operator:test', { key: 'wiki.url', value: wiki.url });
  const secret = await t.call('POST', '/ops/api/hal/settings/secrets', {
    key: 'wiki.api_token',
    value: token,
  });
  expect(secret.status).toBe(200);
  expect(JSON.stringify(secret.body)).not.toContain(token);
}

afterEach(async () => {
  await t.close();
  await wiki.close();
});

/** A two-round debate that concludes (moderator and GPT on the OpenAI fake, Claude on the Anthropic fake). */
async function runDebate() {
  const created = await t.call(
    'POST',
    ai('/connections'),
    testConnectionBody('Moderator', 'openai', t.gpt.baseUrl, t.keys.gpt, 'gpt-test'),
  );
  enqueueConcludingDebate(t);
  const started = await t.call('POST', ai('/debates'), {
    topic: '탭 대 스페이스',
    moderatorId: created.body.connection.id,
    debaterIds: [t.ids.claude, t.ids.gpt],
  });
  expect(started.status).toBe(201);
  const debate = started.body.debate as { id: string; roomId: string; slug: string };
  await eventually(async () => {
    expect((await t.call('GET', ai(`/debates/${debate.id}`))).body.debate.status).toBe('concluded');
  });
  // Publishing runs beside the debate: wait for what it still has in flight.
  await t.ai.debates.idle();
  return debate;
}

const notesOf = async (roomId: string) => {
  const { body } = await t.call('GET', ai(`/rooms/${roomId}/messages?after=0`));
  return (body.messages as { role: string; content: { type: string; code?: string; text: string }[] }[])
    .filter((message) => message.role === 'system')
    .flatMap((message) => message.content)
    .filter((block) => block.type === 'note' && block.code?.startsWith('wiki_'));
};

/** The token is in the vault only: not in the database file, the audit log, the logs or the debate's answers. */
async function assertTokenNowhere(debateId: string) {
  const file = fs.readFileSync(t.dbFile);
  const wal = fs.existsSync(`${t.dbFile}-wal`) ? fs.readFileSync(`${t.dbFile}-wal`) : Buffer.alloc(0);
  expect(file.includes(Buffer.from(token))).toBe(false);
  expect(wal.includes(Buffer.from(token))).toBe(false);
  expect(JSON.stringify(await t.deps.audit.list({ limit: 200 }))).not.toContain(token);
  expect(logged).not.toContain(token);
  for (const pathname of [`/debates/${debateId}`, '/debates', `/debates/${debateId}/export`]) {
    expect(await (await t.request(ai(pathname))).text()).not.toContain(token);
  }
  expect(JSON.stringify((await t.call('GET', '/ops/api/hal/settings')).body)).not.toContain(token);
}

describe('publishing debates to Wiki.js', () => {
  it('creates the working document and round log after the first round, updates them later, adds the conclusion at the end', async () => {
    await setUp();
    const debate = await runDebate();
    const paths = ['working-document', 'round-log', 'conclusion'].map(
      (name) => `debates/${debate.slug}/${name}`,
    );

    // Every call carried the key; each page was created once and then only updated by its id.
    expect(wiki.calls.length).toBeGreaterThanOrEqual(4);
    expect(wiki.calls.every((call) => call.authorization === `Bearer ${token}` && call.status === 200)).toBe(
      true,
    );
    const creates = wiki.calls
      .filter((call) => call.operation === 'create')
      .map((call) => call.variables.path);
    expect(creates.sort()).toEqual([...paths].sort());
    expect(wiki.calls[0]).toMatchObject({ operation: 'create', variables: { path: paths[0], locale: 'en' } });
    const updates = wiki.calls.filter((call) => call.operation === 'update');
    expect(updates.length).toBeGreaterThan(0);
    const ids = new Map([...wiki.pages.values()].map((page) => [page.id, page.path]));
    for (const call of updates)
      expect(ids.get(call.variables.id as number)).toMatch(/working-document|round-log/);

    const [document, log, conclusion] = paths.map((path) => wiki.pages.get(path));
    expect(document?.updates).toBeGreaterThan(0);
    expect(document?.content).toContain('- agreed: its default width');
    expect(log?.content).toContain('Claude: a formatter ends the argument.');
    expect(log?.content).toContain('GPT: I agree, a formatter settles it.');
    expect(conclusion?.content).toContain('Conclusion: use a formatter with its default width.');
    expect(conclusion?.title).toBe('탭 대 스페이스 — conclusion');
    expect(document?.content).toContain('status: concluded');

    const { body } = await t.call('GET', ai(`/debates/${debate.id}`));
    expect(body.publishing).toMatchObject({ configured: true, nextRetryAt: null });
    expect(body.publishing.pages).toEqual(
      paths.map((path, index) => ({
        page: ['working-document', 'round-log', 'conclusion'][index],
        path,
        wikiPageId: wiki.pages.get(path)?.id,
        url: `${wiki.url}/i/${wiki.pages.get(path)?.id}`,
        status: 'published',
        attempts: 0,
        lastError: null,
        updatedAt: expect.any(String),
      })),
    );
    // The existing fields of the answer are unchanged.
    expect(Object.keys(body).sort()).toEqual(['debate', 'diff', 'documents', 'publishing', 'rounds']);

    // Nothing changed since: a new attempt (a restart's retry) sends nothing.
    const before = wiki.calls.length;
    await t.ai.wiki.publish({ debate: body.debate });
    expect(wiki.calls.length).toBe(before);
    expect(await notesOf(debate.roomId)).toEqual([]);
    await assertTokenNowhere(debate.id);
  });

  it('a failing wiki never stops the debate: the failure shows in the debate and the room, and a retry publishes', async () => {
    await setUp();
    wiki.failNext(1000, 'http500');
    const debate = await runDebate();
    const { body } = await t.call('GET', ai(`/debates/${debate.id}`));
    // The debate ran to its end while every Wiki.js call failed.
    expect(body.debate).toMatchObject({ status: 'concluded', round: 2 });
    expect(body.publishing.configured).toBe(true);
    expect(body.publishing.pages.map((page: { page: string }) => page.page)).toEqual([
      'working-document',
      'round-log',
      'conclusion',
    ]);
    for (const page of body.publishing.pages) {
      expect(page).toMatchObject({
        status: 'failed',
        wikiPageId: null,
        url: null,
        lastError: { code: 'wiki_http_error', message: 'Wiki.js answered HTTP 500' },
      });
      expect(page.attempts).toBeGreaterThanOrEqual(1);
    }
    expect(body.publishing.nextRetryAt).not.toBeNull();
    // One note when publishing started failing, not one per attempt.
    expect(await notesOf(debate.roomId)).toEqual([
      expect.objectContaining({
        code: 'wiki_publish_failed',
        text: expect.stringContaining('wiki_http_error'),
      }),
    ]);
    // The backoff grows and is bounded.
    const delays = retries.map((retry) => retry.delayMs);
    expect(delays[0]).toBe(15_000);
    expect(delays.every((delay, index) => index === 0 || delay >= (delays[index - 1] as number))).toBe(true);
    expect(delays.length).toBeLessThanOrEqual(4);

    // The wiki recovers; the pending retry publishes everything.
    wiki.failNext(0, 'http500');
    const pending = retries.filter((retry) => !retry.cancelled);
    expect(pending).toHaveLength(1);
    pending[0]?.run();
    await eventually(async () => {
      const state = (await t.call('GET', ai(`/debates/${debate.id}`))).body.publishing;
      expect(state.pages.map((page: { status: string }) => page.status)).toEqual([
        'published',
        'published',
        'published',
      ]);
      expect(state.nextRetryAt).toBeNull();
    });
    expect(wiki.pages.get(`debates/${debate.slug}/conclusion`)?.content).toContain(
      'Conclusion: use a formatter',
    );
    expect((await notesOf(debate.roomId)).map((note) => note.code)).toEqual([
      'wiki_publish_failed',
      'wiki_published',
    ]);
    await assertTokenNowhere(debate.id);
  });

  it('retries at the next round: refused calls (succeeded: false) of round 1 are published with round 2', async () => {
    await setUp();
    // The first round's two pages are refused; everything after succeeds.
    wiki.failNext(2, 'rejected');
    const debate = await runDebate();
    const state = (await t.call('GET', ai(`/debates/${debate.id}`))).body.publishing;
    expect(state.pages.map((page: { status: string }) => page.status)).toEqual([
      'published',
      'published',
      'published',
    ]);
    const refused = wiki.calls.slice(0, 2);
    expect(refused.map((call) => call.operation)).toEqual(['create', 'create']);
    // Created once each after the refusals (never twice: the fake would refuse a duplicate path).
    expect(wiki.pages.size).toBe(3);
    expect((await notesOf(debate.roomId)).map((note) => note.code)).toEqual([
      'wiki_publish_failed',
      'wiki_published',
    ]);
    expect((await notesOf(debate.roomId))[0]?.text).toContain('6001 PageGenericError');
  });

  it('marks the pages failed with wiki_url_invalid for an address that is not http(s), sending nothing', async () => {
    await setUp();
    await t.deps.core.settings.set('operator:test', { key: 'wiki.url', value: 'ftp://127.0.0.1/wiki' });
    const debate = await runDebate();
    const { body } = await t.call('GET', ai(`/debates/${debate.id}`));
    expect(body.publishing.pages.map((page: { lastError: { code: string } }) => page.lastError.code)).toEqual(
      ['wiki_url_invalid', 'wiki_url_invalid', 'wiki_url_invalid'],
    );
    expect(wiki.calls).toEqual([]);
  });

  it('publishes nothing without a wiki address and key, and says so', async () => {
    token = randomBytes(8).toString('hex');
    wiki = await createFakeWiki({ token });
    t = await createRoomTestApp();
    const debate = await runDebate();
    const { body } = await t.call('GET', ai(`/debates/${debate.id}`));
    expect(body.publishing).toEqual({ configured: false, pages: [], nextRetryAt: null });
    expect(wiki.calls).toEqual([]);
  });
});
