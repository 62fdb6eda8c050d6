/**
 * One debate round, step by step (SPEC §9): the moderator picks the speaker and writes its input, the speaker
 * answers in full, the moderator merges the working document and judges. Each step is one turn of the debate room;
 * after each, the round in flight is saved (`pending`), so a pause, a failed call or an invalid verdict loses
 * nothing and the round resumes at its first missing step. A judged round is committed atomically (round log,
 * document version, counters); then the ending rules decide what follows. Every call first checks the room's token
 * budget: a spent budget stops the debate with a summary HAL writes itself (no further model call).
 */
import { type Debate, type DebateStatus, HalError, type Room, type RoomNote } from '@hal-ai/spec';
import { debateContextText, type NameOf, operatorNotesText, roundsToCompact } from './debate-context.js';
import type { DebateDefaults } from './debate-defaults.js';
import { decideNext, nextAgreementStreak } from './debate-ending.js';
import {
  briefSpeakerPrompt,
  compactPrompt,
  type DebateBrief,
  type DebateCast,
  judgePrompt,
  mergeDocumentPrompt,
  moderatorTaskPrompt,
  parseBrief,
  speakerPrompt,
  unwrapDocument,
} from './debate-prompts.js';
import type {
  DebatePatch,
  DebatePendingRound,
  DebateRecord,
  DebateRoundRecord,
  DebateStore,
} from './debate-store.js';
import { parseVerdict } from './debate-verdict.js';
import { isBudgetExhausted } from './room-budget.js';
import type { MaybePromise, RoomEngine, RoomParticipant, RunningTurn } from './room-engine-types.js';
import { noteText } from './room-notes.js';
import type { RoomStore } from './room-store.js';
import type { RoomWriter } from './room-writer.js';

/** What the rounds need from the engine (see `debate-engine.ts`). */
export interface DebateRoundsSettings {
  rooms: Pick<RoomEngine, 'runTurn'>;
  store: DebateStore;
  roomStore: RoomStore;
  writer: RoomWriter;
  defaults: DebateDefaults;
  clock: () => Date;
  resolveParticipant(connectionId: string): MaybePromise<RoomParticipant | undefined>;
  contextWindowOf(connectionId: string): Promise<number>;
  /** The debate's lock (controls and rounds never interleave their writes). */
  serial<T>(debateId: string, work: () => Promise<T>): Promise<T>;
  announce(record: DebateRecord): Promise<Debate>;
  names(record: DebateRecord): Promise<NameOf>;
  onRoundCommitted(debateId: string): void;
  onEnded(debateId: string): void;
}

/** The rounds of the debates of one engine. */
export interface DebateRounds {
  /** Runs (or resumes) the debate's round; true when the next round may start. */
  runRound(debateId: string): Promise<boolean>;
  /** Cancels the debate's call in flight, if any. */
  cancel(debateId: string): void;
  /** Shutdown: cancels every call in flight; the debates keep their state for recovery. */
  cancelAll(): void;
  closing(): boolean;
}

const FINAL: readonly DebateStatus[] = ['concluded', 'stopped', 'failed'];

/** Creates the round runner of a debate engine. */
export function createDebateRounds(settings: DebateRoundsSettings): DebateRounds {
  const { store, roomStore, writer, serial, defaults } = settings;
  const inFlight = new Map<string, RunningTurn>();
  let closing = false;
  const now = () => settings.clock().toISOString();

  /** Applies a change unless the debate left `allowed` meanwhile (stopped, say); null then. */
  const save = (
    debateId: string,
    patch: (current: DebateRecord) => DebatePatch,
    allowed: readonly DebateStatus[] = ['running', 'paused'],
  ): Promise<DebateRecord | null> =>
    serial(debateId, async () => {
      const current = await store.getDebate(debateId);
      if (!current || !allowed.includes(current.status)) return null;
      const updated = await store.updateDebate(debateId, { ...patch(current), updatedAt: now() });
      await settings.announce(updated);
      return updated;
    });

  /** HAL pauses the debate with a reason the operator sees (a failed call, an inactive connection). */
  const halt = async (record: DebateRecord, reason: string, note: RoomNote) => {
    // The debate keeps the English reason; the note says it in the reader's language.
    const saved = await save(record.id, () => ({ status: 'paused', reason }));
    if (saved) await writer.appendNote(record.roomId, note);
  };

  /** Ends the debate in a final status (unless it already ended), then tells the publishers. */
  const finish = async (debateId: string, patch: DebatePatch & { status: DebateStatus }) => {
    const ended = await save(debateId, () => patch);
    if (ended) settings.onEnded(debateId);
    return ended;
  };

  const endOnBudget = async (record: DebateRecord, room: Room) => {
    const verdict = record.lastVerdict;
    const spent = {
      used: room.tokensUsed,
      budget: room.tokenBudget ?? 0,
      round: record.round,
      maxRounds: record.maxRounds,
      version: record.document.version,
    };
    const listed = (items: string[]) => (items.length > 0 ? items.join('; ') : '—');
    const note: RoomNote = verdict
      ? {
          code: 'debate_budget_spent_verdict',
          params: {
            ...spent,
            level: verdict.agreement_level,
            reason: verdict.reason,
            agreed: listed(verdict.agreed),
            disputed: listed(verdict.disputed),
          },
        }
      : { code: 'debate_budget_spent', params: spent };
    const ended = await finish(record.id, { status: 'stopped', reason: 'The token budget is spent' });
    if (ended) await writer.appendNote(record.roomId, note);
  };

  /** One model call as a turn of the debate room; null when the debate halted instead (see the module comment). */
  const call = async (
    debateId: string,
    connectionId: string,
    brief: DebateBrief,
    tools: boolean,
  ): Promise<string | null> => {
    const record = await store.getDebate(debateId);
    if (!record || FINAL.includes(record.status) || closing) return null;
    const room = await roomStore.getRoom(record.roomId);
    if (room && isBudgetExhausted(room)) {
      await endOnBudget(record, room);
      return null;
    }
    const name = (await settings.resolveParticipant(connectionId))?.name ?? connectionId;
    let running: RunningTurn;
    try {
      running = await settings.rooms.runTurn({
        roomId: record.roomId,
        connectionId,
        operator: record.operator,
        brief,
        ...(tools ? {} : { tools: false as const }),
      });
    } catch (error) {
      if (!HalError.isInstance(error) || error.code !== 'connection_inactive') throw error;
      await halt(record, `${name} is not active.`, { code: 'debate_paused_inactive', params: { name } });
      return null;
    }
    inFlight.set(debateId, running);
    const outcome = await running.done.finally(() => inFlight.delete(debateId));
    if (closing) return null;
    if (outcome.status === 'complete' || outcome.status === 'awaiting_approval') return outcome.text;
    const after = await store.getDebate(debateId);
    // A stop cancelled the call: nothing more to say.
    if (!after || FINAL.includes(after.status)) return null;
    const cancelled = outcome.status === 'cancelled';
    await halt(after, `${name}'s model call ${cancelled ? 'was cancelled' : 'failed'}.`, {
      code: cancelled ? 'debate_paused_cancelled' : 'debate_paused_failed',
      params: { name },
    });
    return null;
  };

  const compactIfNeeded = async (
    record: DebateRecord,
    log: DebateRoundRecord[],
    cast: DebateCast,
    nameOf: NameOf,
  ): Promise<DebateRecord | null> => {
    const windows = await Promise.all(
      [record.moderatorId, ...record.debaterIds].map((id) => settings.contextWindowOf(id)),
    );
    const through = roundsToCompact({
      contextText: debateContextText(record, log, nameOf),
      rounds: log,
      compactedThrough: record.compactedThrough,
      contextWindow: Math.min(...windows),
      share: defaults.contextShare,
      keepRecent: defaults.keepRecentRounds,
    });
    if (through === null) return record;
    const older = log.filter((round) => round.n > record.compactedThrough && round.n <= through);
    const summary = await call(
      record.id,
      record.moderatorId,
      compactPrompt(cast, record.compactedSummary, older, nameOf),
      false,
    );
    if (summary === null) return null;
    const saved = await save(record.id, () => ({
      compactedSummary: summary.trim(),
      compactedThrough: through,
    }));
    if (saved) {
      await writer.appendNote(record.roomId, { code: 'debate_compacted', params: { through } });
    }
    return saved;
  };

  const runRound = async (debateId: string): Promise<boolean> => {
    const found = await store.getDebate(debateId);
    if (!found || found.status !== 'running') return false;
    let record: DebateRecord = found;
    const nameOf = await settings.names(record);
    const cast: DebateCast = {
      moderator: nameOf(record.moderatorId),
      debaters: record.debaterIds.map(nameOf),
    };
    const debaters = record.debaterIds.map((id) => ({ id, name: nameOf(id) }));
    const moderator = record.moderatorId;
    let log = await store.listRounds(debateId);
    const compacted = await compactIfNeeded(record, log, cast, nameOf);
    if (!compacted) return false;
    record = compacted;
    const context = (current: DebateRecord) => debateContextText(current, log, nameOf);

    let pending: DebatePendingRound = record.pending ?? {
      n: record.round + 1,
      speakerId: '',
      input: null,
      reply: null,
      document: null,
    };
    const keep = async (
      next: DebatePendingRound,
      extra: (current: DebateRecord) => DebatePatch = () => ({}),
    ) => {
      const saved = await save(debateId, (current) => ({ ...extra(current), pending: next }));
      if (saved) {
        record = saved;
        pending = next;
      }
      return saved !== null;
    };

    if (pending.input === null) {
      // By turn, the debater after the last speaker; the moderator may choose another.
      const last = log.at(-1)?.speakerId;
      const suggested =
        record.debaterIds[(record.debaterIds.indexOf(last ?? '') + 1) % record.debaterIds.length];
      const speakerByTurn = suggested ?? (record.debaterIds[0] as string);
      const notes = record.notes;
      const operatorWords = operatorNotesText(notes);
      const reply = await call(
        debateId,
        moderator,
        briefSpeakerPrompt(cast, context(record), nameOf(speakerByTurn), operatorWords),
        false,
      );
      if (reply === null) return false;
      const parsed = parseBrief(reply, debaters);
      const input = [parsed.input, operatorWords].filter(Boolean).join('\n\n');
      // Words the operator added while the moderator wrote stay for the next round.
      const stored = await keep(
        { ...pending, speakerId: parsed.speakerId ?? speakerByTurn, input },
        (current) => ({
          notes: current.notes.slice(notes.length),
        }),
      );
      if (!stored) return false;
    }
    const input = pending.input ?? '';
    if (pending.reply === null) {
      const reply = await call(
        debateId,
        pending.speakerId,
        speakerPrompt(cast, nameOf(pending.speakerId), context(record), input),
        true,
      );
      if (reply === null) return false;
      if (!(await keep({ ...pending, reply: reply.trim() || '(no text)' }))) return false;
    }
    const exchange = { n: pending.n, speakerId: pending.speakerId, input, reply: pending.reply ?? '' };
    if (pending.document === null) {
      const merged = await call(
        debateId,
        moderator,
        mergeDocumentPrompt(cast, context(record), exchange, nameOf),
        false,
      );
      if (merged === null) return false;
      if (!(await keep({ ...pending, document: unwrapDocument(merged) }))) return false;
    }

    let verdict = null;
    let refusal: string | null = null;
    for (let attempt = 0; attempt < 2 && !verdict; attempt += 1) {
      const reply = await call(
        debateId,
        moderator,
        judgePrompt(cast, context(record), exchange, nameOf, refusal),
        false,
      );
      if (reply === null) return false;
      const parsed = parseVerdict(reply);
      if (parsed.ok) verdict = parsed.verdict;
      else refusal = parsed.error;
    }
    if (!verdict) {
      const note: RoomNote = { code: 'debate_verdict_invalid', params: { error: refusal ?? '' } };
      const reason = noteText(note);
      const waiting = await save(debateId, () => ({ status: 'waiting_operator', reason, question: null }));
      if (waiting) await writer.appendNote(record.roomId, note);
      return false;
    }

    const document = pending.document ?? '';
    const judged = verdict;
    const next = decideNext(
      {
        round: pending.n,
        maxRounds: record.maxRounds,
        agreementStreak: record.agreementStreak,
        summaryEvery: record.summaryEvery,
      },
      judged,
    );
    const round = pending;
    const committed = await serial(debateId, async () => {
      const current = await store.getDebate(debateId);
      if (!current || FINAL.includes(current.status)) return null;
      const updated = await store.commitRound(
        debateId,
        {
          n: round.n,
          speakerId: round.speakerId,
          input,
          reply: round.reply ?? '',
          verdict: judged,
          documentVersion: round.n,
          createdAt: now(),
        },
        { version: round.n, text: document, round: round.n },
        {
          round: round.n,
          agreementStreak: nextAgreementStreak(current.agreementStreak, judged),
          lastVerdict: judged,
          document: { version: round.n, text: document },
          pending: null,
          status: next.kind === 'ask_user' ? 'waiting_operator' : current.status,
          question: next.kind === 'ask_user' ? next.question : null,
          reason: null,
          updatedAt: now(),
        },
      );
      await settings.announce(updated);
      return updated;
    });
    if (!committed) return false;
    record = committed;
    settings.onRoundCommitted(debateId);
    log = await store.listRounds(debateId);

    if (next.kind === 'ask_user') {
      await writer.appendNote(record.roomId, {
        code: 'debate_question',
        params: { question: next.question },
      });
      return false;
    }
    if (next.kind === 'conclude') {
      const conclusion = await call(
        debateId,
        moderator,
        moderatorTaskPrompt(cast, 'conclusion', context(record), ''),
        false,
      );
      if (conclusion === null) return false;
      const ended = await finish(debateId, { status: 'concluded', conclusion: conclusion.trim() });
      if (ended) await writer.appendNote(record.roomId, { code: 'debate_concluded', params: {} });
      return false;
    }
    if (next.kind === 'max_rounds') {
      const last: RoomNote = {
        code: 'debate_max_rounds',
        params: { round: record.round, maxRounds: record.maxRounds },
      };
      const why = noteText(last);
      const summary = await call(
        debateId,
        moderator,
        moderatorTaskPrompt(cast, 'stopSummary', context(record), why),
        false,
      );
      if (summary === null) return false;
      const ended = await finish(debateId, { status: 'stopped', reason: 'The last round was reached' });
      if (ended) await writer.appendNote(record.roomId, last);
      return false;
    }
    if (next.note) await writer.appendNote(record.roomId, next.note);
    if (next.summaryDue) {
      const why = `Summary after round ${record.round}.`;
      if (
        (await call(
          debateId,
          moderator,
          moderatorTaskPrompt(cast, 'summary', context(record), why),
          false,
        )) === null
      ) {
        return false;
      }
    }
    return true;
  };

  return {
    runRound,
    cancel(debateId) {
      inFlight.get(debateId)?.cancel();
    },
    cancelAll() {
      closing = true;
      for (const running of inFlight.values()) running.cancel();
    },
    closing: () => closing,
  };
}
