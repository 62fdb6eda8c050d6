import type { CallOptions } from '@hal-ai/spec';
import { describe, expect, it, vi } from 'vitest';
import {
  createDebateFixture,
  debaterStep,
  lastUserText,
  taskOf,
  verdict,
} from './debate-fixture.test-support.js';
import { promptText } from './testing/room-fixture.test-support.js';
import { textReply, toolCallReply } from './testing/scripted-language-model.js';

const agreeConclude = verdict({ decision: 'conclude', agreement_level: 'agree', disputed: [] });

function tasks(calls: CallOptions[]) {
  return calls.map(taskOf);
}

function deferred() {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('a debate', () => {
  it('runs rounds by itself and concludes only after two consecutive agreeing rounds', async () => {
    const fixture = await createDebateFixture({
      moderator: { verdicts: [verdict(), agreeConclude, agreeConclude] },
    });
    const started = await fixture.start();
    expect(started).toMatchObject({ status: 'running', round: 0, maxRounds: 8, tokenBudget: 200_000 });
    await fixture.settle();

    const { debate, rounds } = await fixture.debates.get(started.id);
    // Round 2 agreed but was the first agreeing round: its `conclude` was refused; round 3 concluded.
    expect(rounds.map((round) => round.verdict.agreement_level)).toEqual(['partial', 'agree', 'agree']);
    expect(debate).toMatchObject({ status: 'concluded', round: 3, agreementStreak: 2 });
    expect(debate.conclusion).toBe('Conclusion: use a formatter and its default width.');
    expect(debate.document.version).toBe(3);
    expect(rounds.map((round) => round.speakerId)).toEqual(['a', 'b', 'a']);
    expect(rounds[1]?.input).toContain("Respond to the other side's latest point");
    expect(rounds[0]?.reply).toBe('Claude position 1: formatters win.');

    const messages = await fixture.store.listMessages(started.roomId);
    const notes = messages.flatMap((message) => message.content).filter((block) => block.type === 'note');
    expect(notes.map((note) => note.code)).toContain('debate_conclude_refused');
    expect(notes.map((note) => note.code)).toContain('debate_concluded');
    // Every call was a turn of the debate room, attributed to its connection.
    const speakers = messages
      .filter((message) => message.role === 'assistant')
      .map((message) => message.connectionId);
    expect(new Set(speakers)).toEqual(new Set(['mod', 'a', 'b']));
    // The moderator's brief for round 3 carried round 2's position; the speaker saw the moderator's input.
    const speakerPrompt = lastUserText(fixture.model('a').calls[1] as CallOptions);
    expect(speakerPrompt).toContain("## The moderator's input for you");
    expect(speakerPrompt).toContain('GPT position 1');
    expect(tasks(fixture.model('mod').calls).at(-1)).toBe('conclusion');
    expect(
      fixture.events.some((event) => event.type === 'debate' && event.debate.status === 'concluded'),
    ).toBe(true);
    expect(fixture.debateErrors).toEqual([]);
  });

  it('a single agreeing round never concludes, whatever the moderator claims', async () => {
    const fixture = await createDebateFixture({
      moderator: { verdicts: [agreeConclude, verdict({ decision: 'conclude', agreement_level: 'partial' })] },
      defaults: { maxRounds: 2, summaryEvery: 0 },
    });
    const started = await fixture.start();
    await fixture.settle();
    const { debate } = await fixture.debates.get(started.id);
    expect(debate).toMatchObject({ status: 'stopped', round: 2, conclusion: null, agreementStreak: 0 });
    expect(debate.reason).toBe('The last round was reached');
    expect(tasks(fixture.model('mod').calls).at(-1)).toBe('stopSummary');
  });

  it('waits for the operator on ask_user, then carries the answer into the next input as the operator words', async () => {
    const fixture = await createDebateFixture({
      moderator: {
        verdicts: [
          verdict({ decision: 'ask_user', question: 'Which width does your team use?' }),
          agreeConclude,
        ],
      },
      defaults: { maxRounds: 2 },
    });
    const started = await fixture.start();
    await fixture.settle();
    const waiting = (await fixture.debates.get(started.id)).debate;
    expect(waiting).toMatchObject({
      status: 'waiting_operator',
      question: 'Which width does your team use?',
      round: 1,
    });
    await expect(fixture.debates.resume(started.id, fixture.operator)).rejects.toMatchObject({
      code: 'debate_not_running',
    });

    const answered = await fixture.debates.answer(started.id, {
      text: '100 columns.',
      operator: fixture.operator,
    });
    expect(answered).toMatchObject({ status: 'running', question: null });
    await fixture.settle();
    const { rounds } = await fixture.debates.get(started.id);
    expect(rounds[1]?.input).toContain('The operator (admin) answered, in their own words:\n> 100 columns.');
    const messages = await fixture.store.listMessages(started.roomId);
    const answer = messages.find((message) =>
      message.content.some((block) => block.type === 'command' && block.command === 'debate_answer'),
    );
    expect(answer).toMatchObject({ role: 'user', connectionId: null });
    await expect(
      fixture.debates.answer(started.id, { text: 'again', operator: fixture.operator }),
    ).rejects.toMatchObject({
      code: 'debate_not_running',
    });
  });

  it('retries an invalid verdict once with the validation error, then waits without advancing', async () => {
    const fixture = await createDebateFixture({
      moderator: { verdicts: ['I think they agree!', '{"decision":"maybe"}', agreeConclude] },
      defaults: { maxRounds: 1 },
    });
    const started = await fixture.start();
    await fixture.settle();
    const { debate, rounds } = await fixture.debates.get(started.id);
    expect(debate.status).toBe('waiting_operator');
    expect(debate.round).toBe(0);
    expect(rounds).toEqual([]);
    expect(debate.reason).toMatch(/verdict was not valid twice .*decision/);
    const judgeCalls = fixture.model('mod').calls.filter((call) => taskOf(call) === 'judge');
    expect(judgeCalls).toHaveLength(2);
    expect(lastUserText(judgeCalls[1] as CallOptions)).toContain(
      'Your previous answer was refused: the reply is not JSON',
    );

    // The round in flight was kept: answering judges it again, without a new brief or speaker call.
    const speakerCalls = fixture.model('a').calls.length;
    await fixture.debates.answer(started.id, { text: 'Judge again, please.', operator: fixture.operator });
    await fixture.settle();
    const after = await fixture.debates.get(started.id);
    expect(after.rounds).toHaveLength(1);
    expect(after.debate.round).toBe(1);
    expect(fixture.model('a').calls).toHaveLength(speakerCalls);
  });

  it('stops at the token budget, counted from the usage the providers reported, with a summary', async () => {
    const usage = { inputTokens: 300, outputTokens: 100, totalTokens: 400 };
    const fixture = await createDebateFixture({
      moderator: { verdicts: [verdict()], usage },
      debaters: { a: debaterStep('Claude', usage), b: debaterStep('GPT', usage) },
    });
    const started = await fixture.start({ tokenBudget: 2000 });
    await fixture.settle();
    const { debate } = await fixture.debates.get(started.id);
    expect(debate.status).toBe('stopped');
    expect(debate.reason).toBe('The token budget is spent');
    // 4 calls per round at 400 tokens: the fifth call (round 2's speaker) brought it to 2000; nothing ran after.
    expect(debate.tokensUsed).toBe(2000);
    const calls =
      fixture.model('mod').calls.length + fixture.model('a').calls.length + fixture.model('b').calls.length;
    expect(calls).toBe(5);
    const messages = await fixture.store.listMessages(started.roomId);
    const note = messages
      .flatMap((message) => message.content)
      .find((block) => block.type === 'note' && block.code?.startsWith('debate_budget_spent'));
    expect(note?.type === 'note' && note.text).toContain('2000 of 2000 tokens');
    expect(note).toMatchObject({ params: { used: 2000, budget: 2000 } });
  });

  it('carries an injection into the next speaker input and a redirect into the moderator brief', async () => {
    const hold = deferred();
    const fixture = await createDebateFixture({
      moderator: {
        verdicts: [verdict()],
        gate: (task, count) => (task === 'judge' && count === 1 ? hold.promise : undefined),
      },
      defaults: { maxRounds: 2 },
    });
    const started = await fixture.start();
    await fixture.model('mod').started(3);
    await fixture.debates.inject(started.id, {
      text: 'Consider screen readers.',
      operator: fixture.operator,
    });
    await fixture.debates.redirect(started.id, {
      text: 'Focus on accessibility.',
      operator: fixture.operator,
    });
    hold.resolve();
    await fixture.settle();
    const { rounds } = await fixture.debates.get(started.id);
    expect(rounds[0]?.input).not.toContain('screen readers');
    expect(rounds[1]?.input).toContain(
      'The operator (admin) added, in their own words:\n> Consider screen readers.',
    );
    const secondBrief = fixture
      .model('mod')
      .calls.filter((call) => taskOf(call) === 'brief')[1] as CallOptions;
    expect(lastUserText(secondBrief)).toContain('## Direction from the operator\n\nFocus on accessibility.');
    const messages = await fixture.store.listMessages(started.roomId);
    const operatorWords = messages
      .filter((message) => message.role === 'user')
      .map((message) => message.content[0]);
    expect(operatorWords).toContainEqual({ type: 'text', text: 'Consider screen readers.' });
    expect(operatorWords).toContainEqual({ type: 'text', text: 'Focus on accessibility.' });
  });

  it('pause lets the round in flight finish and keeps it; resume runs on; exactly one call is ever in flight', async () => {
    const hold = deferred();
    let inFlight = 0;
    let most = 0;
    const counted = (name: string) => {
      let count = 0;
      return () => {
        count += 1;
        inFlight += 1;
        most = Math.max(most, inFlight);
        const parts = textReply(`${name} position ${count}`);
        const done = count === 1 && name === 'Claude' ? hold.promise : Promise.resolve();
        return {
          parts,
          gate: done.then(() => {
            inFlight -= 1;
          }),
          gateAfter: parts.length,
        };
      };
    };
    const fixture = await createDebateFixture({
      moderator: { verdicts: [verdict()] },
      debaters: { a: counted('Claude'), b: counted('GPT') },
      defaults: { maxRounds: 3, summaryEvery: 0 },
    });
    const started = await fixture.start();
    await fixture.model('a').started(1);
    const paused = await fixture.debates.pause(started.id, fixture.operator);
    expect(paused.status).toBe('paused');
    await expect(fixture.debates.pause(started.id, fixture.operator)).rejects.toMatchObject({
      code: 'debate_not_running',
    });
    hold.resolve();
    await fixture.settle();
    const afterPause = await fixture.debates.get(started.id);
    expect(afterPause.debate).toMatchObject({ status: 'paused', round: 1 });
    expect(afterPause.rounds).toHaveLength(1);
    expect(fixture.model('b').calls).toHaveLength(0);

    await fixture.debates.resume(started.id, fixture.operator);
    await fixture.settle();
    const done = await fixture.debates.get(started.id);
    expect(done.debate).toMatchObject({ status: 'stopped', round: 3 });
    expect(done.rounds.map((round) => round.n)).toEqual([1, 2, 3]);
    expect(most).toBe(1);
  });

  it('a resume that lands while the paused round is still in flight keeps one loop: no round runs twice', async () => {
    const hold = deferred();
    let inFlight = 0;
    let most = 0;
    const tracked = (name: string) => {
      let count = 0;
      return () => {
        count += 1;
        inFlight += 1;
        most = Math.max(most, inFlight);
        const parts = textReply(`${name} position ${count}`);
        const wait = count === 1 && name === 'Claude' ? hold.promise : Promise.resolve();
        return { parts, gate: wait.then(() => (inFlight -= 1)), gateAfter: parts.length };
      };
    };
    const fixture = await createDebateFixture({
      moderator: { verdicts: [verdict()] },
      debaters: { a: tracked('Claude'), b: tracked('GPT') },
      defaults: { maxRounds: 3, summaryEvery: 0 },
    });
    const started = await fixture.start();
    await fixture.model('a').started(1);
    await fixture.debates.pause(started.id, fixture.operator);
    // Resumed before round 1's answer is even complete: the loop that runs round 1 goes on; no second loop starts.
    expect((await fixture.debates.resume(started.id, fixture.operator)).status).toBe('running');
    hold.resolve();
    await fixture.settle();
    const { debate, rounds } = await fixture.debates.get(started.id);
    expect(debate).toMatchObject({ status: 'stopped', round: 3 });
    expect(rounds.map((round) => [round.n, round.speakerId])).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'a'],
    ]);
    expect(tasks(fixture.model('mod').calls).filter((task) => task === 'brief')).toHaveLength(3);
    expect(fixture.model('a').calls).toHaveLength(2);
    expect(fixture.model('b').calls).toHaveLength(1);
    expect(most).toBe(1);
    expect(fixture.debateErrors).toEqual([]);
  });

  it('refuses each control that does not fit the state with debate_not_running and writes nothing for it', async () => {
    const hold = deferred();
    const fixture = await createDebateFixture({
      moderator: { verdicts: [verdict({ decision: 'ask_user', question: 'Which width?' })] },
      debaters: {
        a: () => ({ parts: textReply('Claude position 1'), gate: hold.promise }),
      },
      defaults: { maxRounds: 3, summaryEvery: 0 },
    });
    const started = await fixture.start();
    const operatorWords = async () =>
      (await fixture.store.listMessages(started.roomId)).filter((message) => message.role === 'user').length;
    const refused = async (
      names: readonly ('inject' | 'redirect' | 'answer' | 'pause' | 'resume' | 'stop')[],
    ) => {
      const before = await operatorWords();
      for (const name of names) {
        const call =
          name === 'inject' || name === 'redirect' || name === 'answer'
            ? fixture.debates[name](started.id, { text: 'words', operator: fixture.operator })
            : fixture.debates[name](started.id, fixture.operator);
        await expect(call, name).rejects.toMatchObject({ code: 'debate_not_running' });
      }
      expect(await operatorWords()).toBe(before);
    };
    await fixture.model('a').started(1);
    await refused(['answer', 'resume']); // running
    await fixture.debates.pause(started.id, fixture.operator);
    await refused(['pause', 'answer']); // paused
    await fixture.debates.resume(started.id, fixture.operator);
    hold.resolve();
    await fixture.settle();
    expect((await fixture.debates.get(started.id)).debate.status).toBe('waiting_operator');
    await refused(['pause', 'resume']); // waiting for the operator's answer
    await fixture.debates.stop(started.id, fixture.operator);
    await refused(['inject', 'redirect', 'answer', 'pause', 'resume', 'stop']); // stopped
    await fixture.settle();
  });

  it('posts a moderator summary every N rounds and a stop summary after the last round', async () => {
    const fixture = await createDebateFixture({
      moderator: { verdicts: [verdict()] },
      defaults: { maxRounds: 5, summaryEvery: 2 },
    });
    const started = await fixture.start();
    await fixture.settle();
    const { debate } = await fixture.debates.get(started.id);
    expect(debate).toMatchObject({ status: 'stopped', round: 5, reason: 'The last round was reached' });
    const moderatorTasks = tasks(fixture.model('mod').calls);
    expect(moderatorTasks.filter((task) => task === 'summary')).toHaveLength(2);
    expect(moderatorTasks.at(-1)).toBe('stopSummary');
    const texts = (await fixture.store.listMessages(started.roomId))
      .filter((message) => message.role === 'assistant' && message.connectionId === 'mod')
      .map((message) => message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''));
    expect(texts).toContain('Summary note 1: still discussing width.');
    expect(texts).toContain('Summary note 2: still discussing width.');
    expect(texts).toContain('Stop summary: formatters agreed; width disputed.');
    // The summaries follow rounds 2 and 4: each comes after that round's verdict.
    const judged = moderatorTasks.map((task, index) =>
      task === 'summary' ? moderatorTasks[index - 1] : null,
    );
    expect(judged.filter(Boolean)).toEqual(['judge', 'judge']);
  });

  it('stop cancels the call in flight and nothing runs after it', async () => {
    const fixture = await createDebateFixture({
      moderator: { verdicts: [verdict()] },
      debaters: {
        a: () => ({ parts: textReply('Claude starts a long answer…'), gate: new Promise(() => undefined) }),
      },
    });
    const started = await fixture.start();
    await fixture.model('a').started(1);
    const stopped = await fixture.debates.stop(started.id, fixture.operator);
    expect(stopped).toMatchObject({ status: 'stopped', reason: 'Stopped by the operator' });
    await fixture.settle();
    const calls = fixture.model('mod').calls.length;
    expect(fixture.model('a').cancelled).toBe(1);
    const { debate, rounds } = await fixture.debates.get(started.id);
    expect(debate.status).toBe('stopped');
    expect(rounds).toEqual([]);
    expect(fixture.model('mod').calls).toHaveLength(calls);
    for (const control of ['pause', 'resume', 'stop'] as const) {
      await expect(fixture.debates[control](started.id, fixture.operator)).rejects.toMatchObject({
        code: 'debate_not_running',
      });
    }
    await expect(
      fixture.debates.inject(started.id, { text: 'x', operator: fixture.operator }),
    ).rejects.toMatchObject({
      code: 'debate_not_running',
    });
  });

  it('compacts older rounds into a moderator summary when the context outgrows the window, keeping the full log', async () => {
    const long = (name: string) =>
      debaterStep(name, undefined, (count) => textReply(`${name} ${count} ${'argument '.repeat(120)}`));
    const fixture = await createDebateFixture({
      moderator: { verdicts: [verdict()] },
      debaters: { a: long('Claude'), b: long('GPT') },
      defaults: { maxRounds: 5, summaryEvery: 0, keepRecentRounds: 2, contextShare: 0.5 },
      contextWindow: 2000,
    });
    const started = await fixture.start();
    await fixture.settle();
    const compactCalls = fixture.model('mod').calls.filter((call) => taskOf(call) === 'compact');
    expect(compactCalls.length).toBeGreaterThan(0);
    // The next call after the first compaction carries the summary instead of the oldest rounds.
    const calls = fixture.model('mod').calls;
    const firstCompact = calls.findIndex((call) => taskOf(call) === 'compact');
    const next = lastUserText(calls[firstCompact + 1] as CallOptions);
    expect(next).toContain('COMPACTED SUMMARY 1');
    expect(next).not.toContain('### Round 1 —');
    const { rounds } = await fixture.debates.get(started.id);
    expect(rounds).toHaveLength(5);
    expect(rounds[0]?.reply).toContain('argument argument');
    const messages = await fixture.store.listMessages(started.roomId);
    expect(
      messages.some((message) =>
        message.content.some((block) => block.type === 'note' && block.code === 'debate_compacted'),
      ),
    ).toBe(true);
  });

  it('exports one Markdown file with topic, participants, conclusion, working document and the round log', async () => {
    const fixture = await createDebateFixture({ moderator: { verdicts: [agreeConclude] } });
    const started = await fixture.start();
    await fixture.settle();
    const markdown = await fixture.debates.exportMarkdown(started.id);
    expect(markdown).toMatch(/^# Debate: Tabs or spaces\?\n/);
    expect(markdown).toContain('- moderator: Gemini');
    expect(markdown).toContain('- debaters: Claude, GPT');
    expect(markdown).toContain('## Conclusion\n\nConclusion: use a formatter and its default width.');
    expect(markdown).toContain('## Working document (version 2)\n\n# Working document');
    expect(markdown).toContain('### Round 1 — Claude');
    expect(markdown).toContain('### Round 2 — GPT');
    expect(markdown).toContain('**Verdict:** conclude · agreement: agree');
  });

  it("turns a debater's write tool call into a proposal in the debate room", async () => {
    const fixture = await createDebateFixture({
      moderator: { verdicts: [agreeConclude] },
      debaters: {
        a: debaterStep('Claude', undefined, (count) =>
          count === 1
            ? toolCallReply(
                [{ toolName: 'hal_incident_open', input: { key: 'INC-7', title: 'Tabs' } }],
                'I open one.',
              )
            : null,
        ),
      },
    });
    const started = await fixture.start();
    await fixture.settle();
    const actions = await fixture.store.listActions(started.roomId);
    expect(actions).toHaveLength(1);
    expect(actions[0]).toMatchObject({
      tool: 'hal_incident_open',
      status: 'proposed',
      connectionId: 'a',
      risk: 'write',
    });
    expect(fixture.executions.hal_incident_open).toBeUndefined();
    const { rounds } = await fixture.debates.get(started.id);
    expect(rounds[0]?.reply).toBe('I open one.');
    // The moderator never gets tools.
    expect(fixture.model('mod').calls.every((call) => !call.tools)).toBe(true);
    expect(fixture.model('a').calls[0]?.tools?.length).toBeGreaterThan(0);
    expect(promptText(fixture.model('a').calls[0] as CallOptions)).toContain('This is a debate room');
  });

  it('tells publishers after every round and once at the end, and a failing publisher never stops the debate', async () => {
    const seen: string[] = [];
    const fixture = await createDebateFixture({
      moderator: { verdicts: [verdict(), agreeConclude, agreeConclude] },
      onMilestone: (milestone) => {
        seen.push(`${milestone.kind}:${milestone.debate.round}`);
        throw new Error('wiki down');
      },
    });
    const started = await fixture.start();
    await fixture.settle();
    expect((await fixture.debates.get(started.id)).debate.status).toBe('concluded');
    expect(seen).toEqual(['round:1', 'round:2', 'round:3', 'end:3']);
    expect(fixture.debateErrors).toHaveLength(4);
  });

  it('gives publishers a snapshot for their retries and a HAL note in its room', async () => {
    const fixture = await createDebateFixture({
      moderator: { verdicts: [verdict(), agreeConclude, agreeConclude] },
    });
    const started = await fixture.start();
    await fixture.settle();
    const snapshot = await fixture.debates.snapshot(started.id);
    expect(snapshot.kind).toBe('end');
    expect(snapshot.debate).toMatchObject({ id: started.id, status: 'concluded', round: 3 });
    expect(snapshot.rounds.map((round) => round.n)).toEqual([1, 2, 3]);
    expect(snapshot.nameOf('mod')).toBe('Gemini');

    const params = { error: 'wiki_unreachable', message: 'no answer' };
    await fixture.debates.postNote(started.id, { code: 'wiki_publish_failed_later', params });
    const messages = await fixture.store.listMessages(started.roomId);
    expect(messages.at(-1)).toMatchObject({
      role: 'system',
      content: [
        {
          type: 'note',
          text: 'Wiki.js publishing failed (wiki_unreachable: no answer). The debate goes on; HAL tries again after the next round.',
          code: 'wiki_publish_failed_later',
          params,
        },
      ],
    });
    expect(fixture.events.at(-1)).toMatchObject({ type: 'message' });
    await expect(fixture.debates.snapshot('nope')).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      fixture.debates.postNote('nope', { code: 'wiki_published', params: {} }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('snapshots a running debate as a round milestone', async () => {
    const gate = deferred();
    const fixture = await createDebateFixture({
      moderator: {
        verdicts: [verdict(), agreeConclude, agreeConclude],
        gate: (task, count) => (task === 'brief' && count === 2 ? gate.promise : undefined),
      },
    });
    const started = await fixture.start();
    await vi.waitFor(async () => expect((await fixture.debates.get(started.id)).debate.round).toBe(1));
    const snapshot = await fixture.debates.snapshot(started.id);
    expect(snapshot).toMatchObject({ kind: 'round', debate: { status: 'running', round: 1 } });
    gate.resolve();
    await fixture.settle();
  });
});

describe('bad input', () => {
  it('refuses a moderator among the debaters, fewer than two debaters, an inactive or unknown connection', async () => {
    const fixture = await createDebateFixture({
      moderator: { verdicts: [verdict()] },
      extraParticipants: [{ id: 'off', name: 'Off', active: false }],
    });
    const base = { topic: 'x', operator: fixture.operator };
    // Each refusal names its rule in `details.reason` (clients say it in their reader's language).
    for (const [input, reason] of [
      [{ moderatorId: 'mod', debaterIds: ['mod', 'a'] }, 'moderator_is_debater'],
      [{ moderatorId: 'a', debaterIds: ['a', 'b'] }, 'moderator_is_debater'],
      [{ moderatorId: 'mod', debaterIds: ['a'] }, 'too_few_debaters'],
      [{ moderatorId: 'mod', debaterIds: ['a', 'a'] }, 'too_few_debaters'],
      [{ moderatorId: 'mod', debaterIds: ['a', 'off'] }, 'connection_inactive'],
      [{ moderatorId: 'off', debaterIds: ['a', 'b'] }, 'connection_inactive'],
      [{ moderatorId: 'mod', debaterIds: ['a', 'ghost'] }, 'unknown_connection'],
    ] as const) {
      await expect(
        fixture.debates.create({ ...base, ...input, debaterIds: [...input.debaterIds] }),
      ).rejects.toMatchObject({
        code: 'debate_invalid',
        details: { reason },
      });
    }
    expect(await fixture.debates.list()).toEqual([]);
    expect((await fixture.store.listRooms()).some((room) => room.kind === 'debate')).toBe(false);
  });

  it('a debate room takes no ordinary messages', async () => {
    const fixture = await createDebateFixture({ moderator: { verdicts: [agreeConclude] } });
    const started = await fixture.start();
    await expect(
      fixture.engine.postMessage({ roomId: started.roomId, operator: fixture.operator, text: 'hello' }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    await fixture.settle();
  });
});
