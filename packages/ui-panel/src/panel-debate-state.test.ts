import { describe, expect, it } from 'vitest';
import { testDebate, testDetail } from './panel-debate.test-support.js';
import { enabledControls, needsReload, splitRoundInput, tokenMeter } from './panel-debate-state.js';

describe('enabledControls', () => {
  it('offers each control only in the states the server accepts it in', () => {
    expect(enabledControls('running')).toEqual({
      inject: true,
      redirect: true,
      answer: false,
      pause: true,
      resume: false,
      stop: true,
    });
    expect(enabledControls('paused')).toMatchObject({
      pause: false,
      resume: true,
      answer: false,
      stop: true,
    });
    expect(enabledControls('waiting_operator')).toMatchObject({ answer: true, pause: false, resume: false });
    for (const status of ['concluded', 'stopped', 'failed'] as const) {
      expect(Object.values(enabledControls(status)).some(Boolean)).toBe(false);
    }
  });
});

describe('tokenMeter', () => {
  it('reports used against the budget, high from 80 % and spent at the budget', () => {
    expect(tokenMeter({ tokensUsed: 1000, tokenBudget: 200_000 })).toEqual({
      used: 1000,
      budget: 200_000,
      share: 0.005,
      level: 'normal',
    });
    expect(tokenMeter({ tokensUsed: 170_000, tokenBudget: 200_000 }).level).toBe('high');
    expect(tokenMeter({ tokensUsed: 210_000, tokenBudget: 200_000 })).toMatchObject({
      share: 1,
      level: 'spent',
    });
    expect(tokenMeter({ tokensUsed: 5, tokenBudget: 0 })).toMatchObject({ share: 0, level: 'normal' });
  });
});

describe('needsReload', () => {
  it('reads the debate again for a new round or document version, not for a status change', () => {
    const known = testDetail(2);
    expect(needsReload(undefined, known.debate)).toBe(true);
    expect(needsReload(known, { ...known.debate, status: 'paused', tokensUsed: 99 })).toBe(false);
    expect(needsReload(known, { ...known.debate, round: 3 })).toBe(true);
    expect(needsReload(known, { ...known.debate, document: { version: 3, text: 'x' } })).toBe(true);
    expect(needsReload(known, testDebate({ id: 'other', round: 2 }))).toBe(true);
  });
});

describe('splitRoundInput', () => {
  it("separates the moderator's input from the operator's quoted words", () => {
    const input = [
      'Claude, answer the cost argument.',
      '',
      'The operator (admin) added, in their own words:',
      '> Mind the <b>cost</b>.',
      '> Second line.',
      '',
      'The operator (kim) answered, in their own words:',
      '> Go with A.',
    ].join('\n');
    expect(splitRoundInput(input)).toEqual([
      { by: 'moderator', text: 'Claude, answer the cost argument.' },
      { by: 'operator', operator: 'admin', text: 'Mind the <b>cost</b>.\nSecond line.' },
      { by: 'operator', operator: 'kim', text: 'Go with A.' },
    ]);
    expect(splitRoundInput('Just the moderator.')).toEqual([
      { by: 'moderator', text: 'Just the moderator.' },
    ]);
    // A model that writes "> " lines of its own is not the operator.
    expect(splitRoundInput('> quoted by the model')).toEqual([
      { by: 'moderator', text: '> quoted by the model' },
    ]);
  });
});
