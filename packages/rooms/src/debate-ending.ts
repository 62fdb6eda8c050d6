/**
 * The ending rules, counted by the server whatever the moderator claims (SPEC §9): `conclude` only after agreement
 * in two consecutive rounds; `ask_user` waits for the operator; `maxRounds` and the token budget stop the debate
 * with a summary; a summary note every N rounds. Pure functions of the debate's counters and the round's verdict.
 */
import type { DebateVerdict, RoomNote } from '@hal-ai/spec';

/** Consecutive agreeing rounds a `conclude` needs. */
export const ROUNDS_TO_CONCLUDE = 2;

/** What follows a round with a valid verdict. */
export type DebateNext =
  | { kind: 'conclude' }
  | { kind: 'ask_user'; question: string }
  | { kind: 'max_rounds' }
  | { kind: 'continue'; summaryDue: boolean; note: RoomNote | null };

/** The counters the rules read. */
export interface EndingInput {
  /** The round just judged (1-based). */
  round: number;
  maxRounds: number;
  /** The streak before this round. */
  agreementStreak: number;
  /** A summary note every this many rounds (0: never). */
  summaryEvery: number;
}

/** The new agreement streak: one more for an `agree` round, back to 0 otherwise. */
export function nextAgreementStreak(streak: number, verdict: DebateVerdict): number {
  return verdict.agreement_level === 'agree' ? streak + 1 : 0;
}

/**
 * What the debate does after a judged round. `ask_user` wins (the operator was asked); a `conclude` the streak does
 * not allow continues with a HAL note saying why; the last round stops the debate.
 */
export function decideNext(input: EndingInput, verdict: DebateVerdict): DebateNext {
  const streak = nextAgreementStreak(input.agreementStreak, verdict);
  if (verdict.decision === 'ask_user')
    return { kind: 'ask_user', question: verdict.question ?? verdict.reason };
  if (verdict.decision === 'conclude' && streak >= ROUNDS_TO_CONCLUDE) return { kind: 'conclude' };
  if (input.round >= input.maxRounds) return { kind: 'max_rounds' };
  const note: RoomNote | null =
    verdict.decision === 'conclude'
      ? { code: 'debate_conclude_refused', params: { streak, needed: ROUNDS_TO_CONCLUDE } }
      : null;
  const summaryDue = input.summaryEvery > 0 && input.round % input.summaryEvery === 0;
  return { kind: 'continue', summaryDue, note };
}
