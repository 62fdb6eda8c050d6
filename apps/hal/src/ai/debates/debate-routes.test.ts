import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createRoomTestApp,
  eventually,
  type RoomTestApp,
  testConnectionBody,
} from '../rooms/room-app.test-support.js';
import { concludingVerdict, enqueueConcludingDebate } from './debate-script.test-support.js';

let t: RoomTestApp;
let moderatorId: string;

const ai = (p: string) => `/ops/api/ai${p}`;

beforeEach(async () => {
  t = await createRoomTestApp();
  // The moderator is a third connection on the OpenAI fake (GPT debates on the same fake).
  const created = await t.call(
    'POST',
    ai('/connections'),
    testConnectionBody('Moderator', 'openai', t.gpt.baseUrl, t.keys.gpt, 'gpt-test'),
  );
  expect(created.status).toBe(201);
  moderatorId = created.body.connection.id;
});

afterEach(async () => {
  await t.close();
});

describe('debates over HTTP', () => {
  it('creates a debate that runs to its conclusion through the real providers, then exports it', async () => {
    // Round 1: Claude speaks; round 2: GPT. Both rounds agree; the first conclude is refused (one agreeing round).
    enqueueConcludingDebate(t);
    const created = await t.call('POST', ai('/debates'), {
      topic: '탭 대 스페이스',
      moderatorId,
      debaterIds: [t.ids.claude, t.ids.gpt],
    });
    expect(created.status).toBe(201);
    const debate = created.body.debate;
    expect(debate).toMatchObject({ status: 'running', maxRounds: 8, tokenBudget: 200_000, round: 0 });
    expect(debate.slug).toMatch(/^탭-대-스페이스-/);

    await eventually(async () => {
      const { body } = await t.call('GET', ai(`/debates/${debate.id}`));
      expect(body.debate.status).toBe('concluded');
    });
    const { body } = await t.call('GET', ai(`/debates/${debate.id}`));
    expect(body.rounds.map((round: { speakerId: string }) => round.speakerId)).toEqual([
      t.ids.claude,
      t.ids.gpt,
    ]);
    expect(body.debate).toMatchObject({ round: 2, agreementStreak: 2, document: { version: 2 } });
    expect(body.debate.conclusion).toBe('Conclusion: use a formatter with its default width.');
    // The providers reported usage: it is what the debate counts.
    expect(body.debate.tokensUsed).toBeGreaterThan(0);
    expect(body.documents.map((document: { version: number }) => document.version)).toEqual([0, 1, 2]);
    expect(body.diff).toMatchObject({ from: 1, to: 2 });
    expect(body.diff.lines).toContainEqual({ kind: 'added', text: '- agreed: its default width' });

    const rooms = (await t.call('GET', ai('/rooms'))).body.rooms;
    expect(rooms.at(-1)).toMatchObject({ id: debate.roomId, kind: 'debate', title: '탭 대 스페이스' });
    const list = (await t.call('GET', ai('/debates'))).body.debates;
    expect(list.map((entry: { id: string }) => entry.id)).toEqual([debate.id]);

    const exported = await t.request(ai(`/debates/${debate.id}/export`));
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/^text\/markdown/);
    const markdown = await exported.text();
    expect(markdown).toContain('# Debate: 탭 대 스페이스');
    expect(markdown).toContain('- moderator: Moderator');
    expect(markdown).toContain('Claude: a formatter ends the argument.');

    const resumed = await t.call('POST', ai(`/debates/${debate.id}/resume`));
    expect(resumed.status).toBe(409);
    expect(resumed.body.error.code).toBe('debate_not_running');
    const injected = await t.call('POST', ai(`/debates/${debate.id}/inject`), { text: 'too late' });
    expect(injected.status).toBe(409);
  });

  it('refuses a bad cast with 400 debate_invalid and bad bodies with 400 validation_failed, storing nothing', async () => {
    const cases = [
      [{ moderatorId, debaterIds: [moderatorId, t.ids.gpt] }, 'moderator_is_debater'],
      [{ moderatorId, debaterIds: [t.ids.gpt] }, 'too_few_debaters'],
      [{ moderatorId, debaterIds: [t.ids.gpt, 'no-such-connection'] }, 'unknown_connection'],
    ] as const;
    for (const [cast, reason] of cases) {
      const refused = await t.call('POST', ai('/debates'), { topic: 'x', ...cast });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('debate_invalid');
      expect(refused.body.error.reason).toBe(reason);
    }
    await t.call('PATCH', ai(`/connections/${t.ids.claude}`), { status: 'disabled' });
    const inactive = await t.call('POST', ai('/debates'), {
      topic: 'x',
      moderatorId,
      debaterIds: [t.ids.gpt, t.ids.claude],
    });
    expect(inactive.body.error.code).toBe('debate_invalid');
    expect(inactive.body.error).toMatchObject({ reason: 'connection_inactive', name: expect.any(String) });
    for (const body of [
      { topic: '', moderatorId, debaterIds: [t.ids.gpt, t.ids.claude] },
      { topic: 'x', moderatorId, debaterIds: [t.ids.gpt, t.ids.claude], extra: 1 },
      { topic: 'x', moderatorId, debaterIds: [t.ids.gpt, t.ids.claude], maxRounds: 0 },
    ]) {
      const refused = await t.call('POST', ai('/debates'), body);
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('validation_failed');
    }
    expect((await t.call('GET', ai('/debates'))).body.debates).toEqual([]);
    expect((await t.call('GET', ai('/debates/nope'))).status).toBe(404);
  });

  it("compacts older rounds by the context window the moderator's model list reports, keeping the full log", async () => {
    // The OpenAI fake now lists gpt-test with a small window; the moderator's check reads it.
    t.gpt.setModels([{ id: 'gpt-test', contextWindow: 1500 }, { id: 'gpt-large' }]);
    expect((await t.call('POST', ai(`/connections/${moderatorId}/test`))).status).toBe(200);
    const long = (n: number) =>
      `Claude ${n}: ${'a formatter ends every argument about width '.repeat(40).trim()}`;
    const keepGoing = concludingVerdict({
      decision: 'continue',
      agreement_level: 'partial',
      disputed: ['width'],
    });
    // Rounds 1 and 3 Claude, 2 and 4 GPT; the summary note after round 3; round 4 starts by compacting round 1.
    t.gpt.enqueue(
      ...[1, 2, 3, 4].flatMap((n) => [
        ...(n === 4 ? [{ text: 'MODERATOR SUMMARY OF ROUND 1: formatters win.' }] : []),
        { text: `Brief ${n}` },
        ...(n % 2 === 0 ? [{ text: `GPT ${n}: agreed on the formatter.` }] : []),
        { text: `# Working document\n\n- version ${n}` },
        { text: keepGoing },
        ...(n === 3 ? [{ text: 'Summary note after round 3.' }] : []),
      ]),
      { text: 'Stop summary: formatter agreed, width open.' },
    );
    t.claude.enqueue({ text: long(1) }, { text: long(3) });
    const created = await t.call('POST', ai('/debates'), {
      topic: 'Tabs or spaces',
      moderatorId,
      debaterIds: [t.ids.claude, t.ids.gpt],
      maxRounds: 4,
    });
    const id = created.body.debate.id;
    await eventually(async () => {
      expect((await t.call('GET', ai(`/debates/${id}`))).body.debate.status).toBe('stopped');
    });
    const { body } = await t.call('GET', ai(`/debates/${id}`));
    expect(body.debate).toMatchObject({ round: 4, reason: 'The last round was reached' });
    // The whole log is stored, the long answers in full.
    expect(body.rounds.map((round: { reply: string }) => round.reply)).toEqual([
      long(1),
      'GPT 2: agreed on the formatter.',
      long(3),
      'GPT 4: agreed on the formatter.',
    ]);
    const prompts = t.gpt.requests
      .filter((request) => request.path.endsWith('/chat/completions'))
      .map((request) => JSON.stringify(request.body));
    const compact = prompts.findIndex((prompt) => prompt.includes('Task: summarise older rounds.'));
    expect(compact).toBeGreaterThan(0);
    // The call after the compaction (round 4's brief) carries the summary instead of round 1.
    expect(prompts[compact + 1]).toContain('MODERATOR SUMMARY OF ROUND 1');
    expect(prompts[compact + 1]).not.toContain('Claude 1:');
    const messages = (await t.call('GET', ai(`/rooms/${created.body.debate.roomId}/messages?after=0`))).body
      .messages;
    expect(JSON.stringify(messages)).toContain('debate_compacted');
  });
});
