/**
 * Debate rooms (SPEC §9, §14): a moderated debate between model connections in a room of kind `debate`.
 * Types only; the state machine lives in `@hal-ai/rooms` (`debate-*.ts`).
 */

/** Where a debate stands. Only `running` starts new rounds; the last three are final. */
export type DebateStatus = 'running' | 'paused' | 'waiting_operator' | 'concluded' | 'stopped' | 'failed';

/** How far the sides agree, as the moderator judges one round. */
export type DebateAgreementLevel = 'disagree' | 'partial' | 'agree';

/** What the moderator wants next. The server decides whether `conclude` is allowed (two agreeing rounds). */
export type DebateDecision = 'continue' | 'ask_user' | 'conclude';

/** The moderator's judgement of one round (SPEC §9), validated against a schema before it counts. */
export interface DebateVerdict {
  decision: DebateDecision;
  agreement_level: DebateAgreementLevel;
  reason: string;
  agreed: string[];
  disputed: string[];
  /** The question for the operator when `decision` is `ask_user`. */
  question?: string;
}

/** A debate as the HTTP API shows it (SPEC §14). */
export interface Debate {
  id: string;
  roomId: string;
  topic: string;
  slug: string;
  status: DebateStatus;
  moderatorId: string;
  debaterIds: string[];
  /** Rounds completed (a round counts once its verdict was valid). */
  round: number;
  maxRounds: number;
  /** Tokens the providers reported for this debate's model calls. */
  tokensUsed: number;
  tokenBudget: number;
  /** Consecutive rounds judged `agree`, counted by the server. */
  agreementStreak: number;
  lastVerdict: Omit<DebateVerdict, 'question'> | null;
  /** What the debate waits for the operator to answer (`ask_user`), if anything. */
  question: string | null;
  /** Why the debate is waiting, paused by HAL, stopped or failed (e.g. an invalid verdict), if HAL set it. */
  reason: string | null;
  document: { version: number; text: string };
  conclusion: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One completed round (SPEC §14 `rounds[]`). */
export interface DebateRound {
  n: number;
  speakerId: string;
  /** What the moderator gave the speaker (with any operator injection, quoted as the operator's). */
  input: string;
  reply: string;
  verdict: DebateVerdict;
  /** The working document's version this round produced. */
  documentVersion: number;
}

/** One version of a debate's working document (version 0 is the empty start). */
export interface DebateDocumentVersion {
  version: number;
  text: string;
  /** The round that wrote it (0 for the start). */
  round: number;
}
