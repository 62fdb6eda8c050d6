import { describe, expect, it } from 'vitest';
import { decideNext, nextAgreementStreak } from './debate-ending.js';
import { parseVerdict } from './debate-verdict.js';

const valid = {
  decision: 'continue',
  agreement_level: 'partial',
  reason: 'Width is still open.',
  agreed: ['use a formatter'],
  disputed: ['width'],
};

describe('parseVerdict', () => {
  it('accepts the SPEC §9 JSON, bare or in one json fence', () => {
    expect(parseVerdict(JSON.stringify(valid))).toEqual({ ok: true, verdict: valid });
    expect(parseVerdict(`\`\`\`json\n${JSON.stringify(valid)}\n\`\`\``)).toEqual({
      ok: true,
      verdict: valid,
    });
    const ask = { ...valid, decision: 'ask_user', question: 'Which width?' };
    expect(parseVerdict(JSON.stringify(ask))).toEqual({ ok: true, verdict: ask });
  });

  it('refuses anything else with an error naming what is wrong', () => {
    expect(parseVerdict('They agree.')).toMatchObject({
      ok: false,
      error: expect.stringContaining('not JSON'),
    });
    expect(parseVerdict(`Here: ${JSON.stringify(valid)}`)).toMatchObject({ ok: false });
    expect(parseVerdict(JSON.stringify({ ...valid, decision: 'maybe' }))).toMatchObject({
      ok: false,
      error: expect.stringContaining('decision'),
    });
    expect(parseVerdict(JSON.stringify({ ...valid, extra: 1 }))).toMatchObject({ ok: false });
    expect(parseVerdict(JSON.stringify({ ...valid, reason: ' ' }))).toMatchObject({ ok: false });
    expect(parseVerdict(JSON.stringify({ ...valid, agreed: 'all' }))).toMatchObject({ ok: false });
    expect(parseVerdict(JSON.stringify({ ...valid, decision: 'ask_user' }))).toMatchObject({
      ok: false,
      error: expect.stringContaining('question'),
    });
  });
});

describe('the ending rules', () => {
  const base = { round: 1, maxRounds: 8, agreementStreak: 0, summaryEvery: 3 };
  const agree = { ...valid, decision: 'conclude', agreement_level: 'agree' } as const;

  it('counts consecutive agreeing rounds and concludes only at two', () => {
    expect(nextAgreementStreak(0, agree)).toBe(1);
    expect(nextAgreementStreak(1, { ...agree, agreement_level: 'partial' })).toBe(0);
    expect(decideNext(base, agree)).toMatchObject({
      kind: 'continue',
      note: { code: 'debate_conclude_refused', params: { streak: 1, needed: 2 } },
    });
    expect(decideNext({ ...base, round: 2, agreementStreak: 1 }, agree)).toEqual({ kind: 'conclude' });
    // Agreement without the moderator asking to conclude goes on.
    expect(
      decideNext({ ...base, round: 2, agreementStreak: 1 }, { ...agree, decision: 'continue' }),
    ).toMatchObject({
      kind: 'continue',
      note: null,
    });
  });

  it('asks the operator, stops at the last round and asks for a summary every N rounds', () => {
    expect(decideNext(base, { ...valid, decision: 'ask_user', question: 'Q?' } as never)).toEqual({
      kind: 'ask_user',
      question: 'Q?',
    });
    expect(decideNext({ ...base, round: 8 }, valid as never)).toEqual({ kind: 'max_rounds' });
    expect(decideNext({ ...base, round: 3 }, valid as never)).toMatchObject({
      kind: 'continue',
      summaryDue: true,
    });
    expect(decideNext({ ...base, round: 4 }, valid as never)).toMatchObject({
      kind: 'continue',
      summaryDue: false,
    });
    expect(decideNext({ ...base, round: 3, summaryEvery: 0 }, valid as never)).toMatchObject({
      summaryDue: false,
    });
  });
});
