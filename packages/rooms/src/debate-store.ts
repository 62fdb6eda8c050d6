/**
 * Persistence of debates: the debate's own state, its append-only round log and the working document's versions
 * (one per round). Storage is never truncated: compaction only changes what a prompt carries. Every method is async
 * so the app's SQL store can implement it; {@link createMemoryDebateStore} is the reference implementation.
 */
import type {
  Debate,
  DebateDocumentVersion,
  DebateRound,
  DebateStatus,
  DebateVerdict,
  Room,
} from '@hal-ai/spec';
import type { RoomOperator } from './room-engine-types.js';

/** Operator words waiting for the next speaker's input (an `inject`, or the `answer` to a question). */
export interface DebateOperatorNote {
  kind: 'inject' | 'answer';
  text: string;
  /** The operator's username (their words are quoted as theirs, never as a model's). */
  by: string;
}

/**
 * The round in flight, saved after each of its steps so that a pause, an invalid verdict or a failed call loses
 * nothing: the round resumes at its first missing step.
 */
export interface DebatePendingRound {
  n: number;
  speakerId: string;
  /** The moderator's input for the speaker (null until written). */
  input: string | null;
  reply: string | null;
  /** The merged working document (null until merged). */
  document: string | null;
}

/** A stored debate: the public fields (less the room's token counts) plus the state its rounds need. */
export interface DebateRecord extends Omit<Debate, 'tokensUsed' | 'lastVerdict'> {
  /** The budget the debate started with (the room's budget is what counts; see {@link toPublicDebate}). */
  tokenBudget: number;
  /** The last verdict in full (with its question). */
  lastVerdict: DebateVerdict | null;
  /** A summary note every this many rounds. */
  summaryEvery: number;
  /** The moderator's summary of rounds 1…`compactedThrough` (what prompts carry instead of those rounds). */
  compactedSummary: string | null;
  compactedThrough: number;
  /** The moderator's current direction (`redirect`), kept until the operator gives another. */
  direction: string | null;
  notes: DebateOperatorNote[];
  pending: DebatePendingRound | null;
  /** The operator who started it (the debate's turns act for them). */
  operator: RoomOperator | null;
}

/** The fields of a debate that change. */
export type DebatePatch = Partial<
  Omit<DebateRecord, 'id' | 'roomId' | 'topic' | 'slug' | 'moderatorId' | 'debaterIds' | 'createdAt'>
>;

/** A round as stored (the SPEC §14 round plus when it was stored). */
export interface DebateRoundRecord extends DebateRound {
  createdAt: string;
}

/** Persistence of debates (see the module comment). */
export interface DebateStore {
  createDebate(record: DebateRecord): Promise<DebateRecord>;
  getDebate(debateId: string): Promise<DebateRecord | undefined>;
  findDebateByRoom(roomId: string): Promise<DebateRecord | undefined>;
  /** Every debate, newest first. */
  listDebates(): Promise<DebateRecord[]>;
  /** Debates in one of these statuses (start-up recovery). */
  listDebatesByStatus(statuses: readonly DebateStatus[]): Promise<DebateRecord[]>;
  updateDebate(debateId: string, patch: DebatePatch): Promise<DebateRecord>;
  /**
   * Commits a judged round atomically: appends it to the round log, stores the document version it wrote and
   * applies `patch` to the debate. A round number stored twice is refused (`conflict`).
   */
  commitRound(
    debateId: string,
    round: DebateRoundRecord,
    document: DebateDocumentVersion,
    patch: DebatePatch,
  ): Promise<DebateRecord>;
  /** The round log in order. */
  listRounds(debateId: string): Promise<DebateRoundRecord[]>;
  /** Every version of the working document, oldest first (version 0, the empty start, included). */
  listDocumentVersions(debateId: string): Promise<DebateDocumentVersion[]>;
}

/** The public view of a debate (SPEC §14): tokens and budget are the debate room's, as the providers reported. */
export function toPublicDebate(record: DebateRecord, room: Pick<Room, 'tokenBudget' | 'tokensUsed'>): Debate {
  const verdict = record.lastVerdict;
  return {
    id: record.id,
    roomId: record.roomId,
    topic: record.topic,
    slug: record.slug,
    status: record.status,
    moderatorId: record.moderatorId,
    debaterIds: [...record.debaterIds],
    round: record.round,
    maxRounds: record.maxRounds,
    tokensUsed: room.tokensUsed,
    tokenBudget: room.tokenBudget ?? record.tokenBudget,
    agreementStreak: record.agreementStreak,
    lastVerdict: verdict
      ? {
          decision: verdict.decision,
          agreement_level: verdict.agreement_level,
          reason: verdict.reason,
          agreed: [...verdict.agreed],
          disputed: [...verdict.disputed],
        }
      : null,
    question: record.question,
    reason: record.reason,
    document: { ...record.document },
    conclusion: record.conclusion,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** The public view of a stored round (SPEC §14 `rounds[]`). */
export function toPublicRound(record: DebateRoundRecord): DebateRound {
  return {
    n: record.n,
    speakerId: record.speakerId,
    input: record.input,
    reply: record.reply,
    verdict: record.verdict,
    documentVersion: record.documentVersion,
  };
}
