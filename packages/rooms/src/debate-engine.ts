/**
 * Debate rooms (SPEC §9): the state machine that drives a moderated debate. A debate lives in a room of kind
 * `debate`; every model call is an ordinary turn of the room engine (`RoomEngine.runTurn`), so it streams into the
 * room, its read tools run, a debater's write/high calls become proposals in the debate room, and its usage counts
 * against the room's token budget. The parts, read in this order:
 * - `debate-round.ts`: one round, step by step (brief → speaker → merge → verdict), and what follows it;
 * - `debate-verdict.ts`, `debate-ending.ts`: the verdict's schema and the ending rules the server counts;
 * - `debate-context.ts`, `debate-prompts.ts`: what each call carries, and compaction;
 * - `debate-store.ts`: persistence; `debate-export.ts`: the Markdown export.
 * This file holds the debates' lifecycle: creation (checked), the operator's controls (each one a state
 * transition, refused with `debate_not_running` when it does not fit), and the one loop per debate that runs rounds
 * while it is `running` — so exactly one round is ever in flight.
 */
import {
  type Debate,
  type DebateDocumentVersion,
  type DebateStatus,
  HalError,
  type Room,
  type RoomNote,
} from '@hal-ai/spec';
import { DEBATE_DEFAULTS, type DebateDefaults } from './debate-defaults.js';
import { debateToMarkdown } from './debate-export.js';
import { createDebateRounds, type DebateRoundsSettings } from './debate-round.js';
import type { DebateRecord, DebateRoundRecord, DebateStore } from './debate-store.js';
import { toPublicDebate, toPublicRound } from './debate-store.js';
import type { MaybePromise, RoomEngine, RoomOperator, RoomParticipant } from './room-engine-types.js';
import type { RoomEventHub } from './room-events.js';
import {
  createRedactingDebateStore,
  createRedactingEventHub,
  createRedactingRoomStore,
  type RoomRedact,
} from './room-redaction.js';
import type { RoomStore } from './room-store.js';
import { createRoomWriter } from './room-writer.js';

/** A debate's lifecycle events, for publishers (Wiki.js): after every round, and once at the end. */
export interface DebateMilestone {
  kind: 'round' | 'end';
  debate: Debate;
  rounds: DebateRoundRecord[];
  nameOf(connectionId: string): string;
}

/** Settings of {@link createDebateEngine}. */
export interface DebateEngineSettings {
  /** The room engine whose turns the debate's calls are. */
  rooms: Pick<RoomEngine, 'runTurn'>;
  roomStore: RoomStore;
  events: RoomEventHub;
  store: DebateStore;
  resolveParticipant(connectionId: string): MaybePromise<RoomParticipant | undefined>;
  /** The model's context window as its provider's model list reports it; undefined → `defaults.contextWindow`. */
  contextWindowOf?(connectionId: string): MaybePromise<number | undefined>;
  defaults?: Partial<DebateDefaults>;
  clock?: () => Date;
  newId?: () => string;
  /**
   * Called after every committed round and once when the debate ends; never awaited by the debate (a slow or
   * failing publisher never blocks it). Errors go to `onError`.
   */
  onMilestone?(milestone: DebateMilestone): MaybePromise<void>;
  onError?(error: unknown): void;
  /**
   * The host's redaction of secrets (the room engine's, see `room-redaction.ts`): the topic, the operator's words,
   * the debate's rows and its messages and events pass it before they are stored or announced, so neither the
   * export nor a snapshot of the database holds a secret. Absent → nothing is redacted.
   */
  redact?: RoomRedact;
}

/** Input of {@link DebateEngine.create} (SPEC §14). */
export interface CreateDebateInput {
  topic: string;
  moderatorId: string;
  debaterIds: string[];
  maxRounds?: number;
  tokenBudget?: number;
  operator: RoomOperator;
}

/** An operator control with words (inject, redirect, answer). */
export interface DebateWordsInput {
  text: string;
  operator: RoomOperator;
}

/** The debates of a HAL. */
export interface DebateEngine {
  /** Checks the cast (`debate_invalid`), creates the debate room and the debate, and starts its first round. */
  create(input: CreateDebateInput): Promise<Debate>;
  list(): Promise<Debate[]>;
  /** One debate with its round log (`not_found` when unknown). */
  get(debateId: string): Promise<{ debate: Debate; rounds: ReturnType<typeof toPublicRound>[] }>;
  /** Every version of the working document, oldest first. */
  documentVersions(debateId: string): Promise<DebateDocumentVersion[]>;
  /** Operator words for the next speaker's input (running, paused or waiting). */
  inject(debateId: string, input: DebateWordsInput): Promise<Debate>;
  /** A new direction for the moderator (running, paused or waiting). */
  redirect(debateId: string, input: DebateWordsInput): Promise<Debate>;
  /** The operator's answer while the debate waits for it; the debate runs on. */
  answer(debateId: string, input: DebateWordsInput): Promise<Debate>;
  /** No new round starts; the round in flight finishes and is kept. */
  pause(debateId: string, operator: RoomOperator): Promise<Debate>;
  /** A paused debate runs on (from the first missing step of its round). */
  resume(debateId: string, operator: RoomOperator): Promise<Debate>;
  /** Ends the debate now: the call in flight is cancelled; what the round had stored is kept. */
  stop(debateId: string, operator: RoomOperator): Promise<Debate>;
  /** The debate as one Markdown file (topic, participants, conclusion, working document, round log). */
  exportMarkdown(debateId: string): Promise<string>;
  /**
   * The debate as a publisher sees it now (what `onMilestone` receives): `end` once it has ended, else `round`.
   * For a publisher's retries, which run outside the milestones.
   */
  snapshot(debateId: string): Promise<DebateMilestone>;
  /** A HAL note in the debate's room (e.g. a publisher's failure); never part of a model's prompt. */
  postNote(debateId: string, note: RoomNote): Promise<void>;
  /** Start-up: debates that were `running` run on from where their round stopped. */
  recover(): Promise<number>;
  /** Resolves when no debate loop or milestone is running (tests, shutdown). */
  idle(): Promise<void>;
  /** Cancels every debate's call in flight (shutdown); the debates stay `running` for {@link recover}. */
  close(): Promise<void>;
}

const FINAL: readonly DebateStatus[] = ['concluded', 'stopped', 'failed'];
/** Statuses in which operator words are taken (kept for the next round). */
const OPEN: readonly DebateStatus[] = ['running', 'paused', 'waiting_operator'];

/**
 * A slug for Wiki.js paths: letters (any script, Korean included) and digits, joined by `-`, at most 60
 * characters, then a short piece of the id so two debates on one topic never share pages.
 */
export function debateSlug(topic: string, id: string): string {
  const base = topic
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  const suffix = id
    .replace(/[^a-z0-9]/gi, '')
    .slice(-6)
    .toLowerCase();
  return [base || 'debate', suffix].filter(Boolean).join('-');
}

/**
 * Creates the debate engine over a room engine, the room store and a debate store.
 *
 * @example
 * const debates = createDebateEngine({ rooms: engine, roomStore, events, store: createMemoryDebateStore(), resolveParticipant });
 * const debate = await debates.create({ topic: '탭 대 스페이스', moderatorId: 'gemini', debaterIds: ['claude', 'gpt'], operator });
 */
export function createDebateEngine(settings: DebateEngineSettings): DebateEngine {
  // The redaction boundary: the debate writes rows, messages and events of its own, beside the room engine's.
  const redact: RoomRedact = settings.redact ?? (<T>(value: T) => value);
  const store = settings.redact ? createRedactingDebateStore(settings.store, redact) : settings.store;
  const roomStore = settings.redact
    ? createRedactingRoomStore(settings.roomStore, redact)
    : settings.roomStore;
  const events = settings.redact ? createRedactingEventHub(settings.events, redact) : settings.events;
  const clock = settings.clock ?? (() => new Date());
  const newId = settings.newId ?? (() => globalThis.crypto.randomUUID());
  const defaults: DebateDefaults = { ...DEBATE_DEFAULTS, ...settings.defaults };
  const writer = createRoomWriter({ store: roomStore, events, clock, newId });
  const background = new Set<Promise<unknown>>();
  const loops = new Map<string, Promise<void>>();
  const locks = new Map<string, Promise<unknown>>();

  const reportError = (error: unknown) => {
    try {
      settings.onError?.(error);
    } catch {
      // A failing reporter must not break a debate.
    }
  };
  const track = (work: Promise<unknown>) => {
    const guarded = work.catch(reportError).finally(() => background.delete(guarded));
    background.add(guarded);
  };

  /** Runs `work` after every earlier change of the same debate: controls and the round loop never interleave. */
  const serial = <T>(debateId: string, work: () => Promise<T>): Promise<T> => {
    const previous = locks.get(debateId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    locks.set(debateId, settled);
    void settled.then(() => {
      if (locks.get(debateId) === settled) locks.delete(debateId);
    });
    return next;
  };

  const requireDebate = async (debateId: string): Promise<DebateRecord> => {
    const debate = await store.getDebate(debateId);
    if (!debate) throw new HalError('not_found', `No debate ${debateId}`);
    return debate;
  };
  const roomOf = async (record: Pick<DebateRecord, 'roomId'>): Promise<Room> => {
    const room = await roomStore.getRoom(record.roomId);
    if (!room) throw new HalError('not_found', `No room ${record.roomId}`);
    return room;
  };
  const publicView = async (record: DebateRecord): Promise<Debate> =>
    toPublicDebate(record, await roomOf(record));

  /** Publishes the debate's current state as a `debate` event of its room. */
  const announce = async (record: DebateRecord): Promise<Debate> => {
    const debate = await publicView(record);
    writer.publish(record.roomId, { type: 'debate', debate });
    return debate;
  };

  const names = async (record: DebateRecord) => {
    const entries = new Map<string, string>();
    for (const id of [record.moderatorId, ...record.debaterIds]) {
      entries.set(id, (await settings.resolveParticipant(id))?.name ?? id);
    }
    return (id: string) => entries.get(id) ?? id;
  };

  /** The debate as publishers see it now; `kind` defaults to `end` once it has ended, else `round`. */
  const snapshot = async (debateId: string, kind?: DebateMilestone['kind']): Promise<DebateMilestone> => {
    const record = await requireDebate(debateId);
    return {
      kind: kind ?? (FINAL.includes(record.status) ? 'end' : 'round'),
      debate: await publicView(record),
      rounds: await store.listRounds(debateId),
      nameOf: await names(record),
    };
  };

  const milestone = (debateId: string, kind: DebateMilestone['kind']) => {
    if (!settings.onMilestone) return;
    const publish = settings.onMilestone;
    track((async () => publish(await snapshot(debateId, kind)))());
  };

  const roundsSettings: DebateRoundsSettings = {
    rooms: settings.rooms,
    store,
    roomStore,
    writer,
    defaults,
    clock,
    resolveParticipant: settings.resolveParticipant,
    contextWindowOf: async (id) => (await settings.contextWindowOf?.(id)) ?? defaults.contextWindow,
    serial,
    announce,
    names,
    onRoundCommitted: (debateId) => milestone(debateId, 'round'),
    onEnded: (debateId) => milestone(debateId, 'end'),
  };
  const rounds = createDebateRounds(roundsSettings);

  /** The one loop of a debate: runs rounds while it is `running`. Starting it twice is a no-op. */
  const drive = (debateId: string) => {
    if (loops.has(debateId)) return;
    const loop = (async () => {
      for (;;) {
        const record = await requireDebate(debateId);
        if (record.status !== 'running') return;
        const goOn = await rounds.runRound(debateId);
        if (!goOn) return;
      }
    })()
      .catch(async (error) => {
        reportError(error);
        // An unexpected failure (a store error): the debate says so instead of looking alive.
        await serial(debateId, async () => {
          const record = await store.getDebate(debateId);
          if (!record || FINAL.includes(record.status)) return;
          await announce(
            await store.updateDebate(debateId, {
              status: 'failed',
              reason: 'HAL could not continue this debate (see the server log)',
              updatedAt: clock().toISOString(),
            }),
          );
        });
      })
      .finally(() => {
        loops.delete(debateId);
        // A resume that landed while this loop was finishing its last round finds no loop: start again.
        void store.getDebate(debateId).then((record) => {
          if (record?.status === 'running' && !rounds.closing()) drive(debateId);
        }, reportError);
      });
    loops.set(debateId, loop);
    track(loop);
  };

  /** The operator's words in the room: a user message with the control named (never a model's words). */
  const operatorMessage = (record: DebateRecord, control: string, text: string) =>
    writer.appendMessage({
      roomId: record.roomId,
      role: 'user',
      connectionId: null,
      model: null,
      content: [
        { type: 'text', text },
        { type: 'command', command: `debate_${control}`, args: [] },
      ],
      status: 'complete',
      error: null,
      relayDepth: 0,
      relayedFrom: null,
      usage: null,
    });

  /** One control: checked against the state and applied under the debate's lock. */
  const control = async (
    debateId: string,
    name: 'inject' | 'redirect' | 'answer' | 'pause' | 'resume' | 'stop',
    allowed: readonly DebateStatus[],
    words: string,
    apply: (record: DebateRecord) => Parameters<DebateStore['updateDebate']>[1],
  ): Promise<Debate> => {
    const result = await serial(debateId, async () => {
      const record = await requireDebate(debateId);
      if (!allowed.includes(record.status)) {
        throw new HalError(
          'debate_not_running',
          `The debate is ${record.status.replace('_', ' ')}: ${name} does not apply now`,
          { details: { status: record.status } },
        );
      }
      await operatorMessage(record, name, words);
      const updated = await store.updateDebate(debateId, {
        ...apply(record),
        updatedAt: clock().toISOString(),
      });
      return announce(updated);
    });
    return result;
  };

  const words = (input: DebateWordsInput) => {
    const text = input.text.trim();
    if (!text) throw new HalError('validation_failed', 'text must not be empty');
    return text;
  };

  return {
    async create(input) {
      // Redacted before anything is built from it: the room's title, the slug (Wiki.js paths) and the rows.
      const topic = redact(input.topic.trim());
      if (!topic) throw new HalError('validation_failed', 'topic must not be empty');
      const debaterIds = [...new Set(input.debaterIds)];
      // `details.reason` names which rule failed, so a client can say it in its reader's language.
      if (debaterIds.includes(input.moderatorId)) {
        throw new HalError('debate_invalid', 'The moderator cannot also be a debater', {
          details: { reason: 'moderator_is_debater' },
        });
      }
      if (debaterIds.length < 2) {
        throw new HalError('debate_invalid', 'A debate needs at least two debaters', {
          details: { reason: 'too_few_debaters' },
        });
      }
      for (const id of [input.moderatorId, ...debaterIds]) {
        const participant = await settings.resolveParticipant(id);
        if (!participant) {
          throw new HalError('debate_invalid', `No connection ${id}`, {
            details: { id, reason: 'unknown_connection' },
          });
        }
        if (!participant.active) {
          throw new HalError('debate_invalid', `${participant.name} is not active`, {
            details: { id, name: participant.name, reason: 'connection_inactive' },
          });
        }
      }
      const maxRounds = input.maxRounds ?? defaults.maxRounds;
      const tokenBudget = input.tokenBudget ?? defaults.tokenBudget;
      const room = await roomStore.createDebateRoom({ title: topic.slice(0, 80), tokenBudget });
      const id = newId();
      const now = clock().toISOString();
      const record = await store.createDebate({
        id,
        roomId: room.id,
        topic,
        slug: debateSlug(topic, id),
        status: 'running',
        moderatorId: input.moderatorId,
        debaterIds,
        round: 0,
        maxRounds,
        tokenBudget,
        agreementStreak: 0,
        lastVerdict: null,
        question: null,
        reason: null,
        document: { version: 0, text: '' },
        conclusion: null,
        summaryEvery: defaults.summaryEvery,
        compactedSummary: null,
        compactedThrough: 0,
        direction: null,
        notes: [],
        pending: null,
        operator: input.operator,
        createdAt: now,
        updatedAt: now,
      });
      await operatorMessage(record, 'start', topic);
      const debate = await announce(record);
      drive(record.id);
      return debate;
    },
    async list() {
      const records = await store.listDebates();
      return Promise.all(records.map(publicView));
    },
    async get(debateId) {
      const record = await requireDebate(debateId);
      return {
        debate: await publicView(record),
        rounds: (await store.listRounds(debateId)).map(toPublicRound),
      };
    },
    documentVersions: async (debateId) => {
      await requireDebate(debateId);
      return store.listDocumentVersions(debateId);
    },
    inject: (debateId, input) => {
      const text = words(input);
      return control(debateId, 'inject', OPEN, text, (record) => ({
        notes: [...record.notes, { kind: 'inject', text, by: input.operator.username }],
      }));
    },
    redirect: (debateId, input) => {
      const text = words(input);
      return control(debateId, 'redirect', OPEN, text, () => ({ direction: text }));
    },
    async answer(debateId, input) {
      const text = words(input);
      const debate = await control(debateId, 'answer', ['waiting_operator'], text, (record) => ({
        status: 'running',
        question: null,
        reason: null,
        notes: [...record.notes, { kind: 'answer', text, by: input.operator.username }],
      }));
      drive(debateId);
      return debate;
    },
    pause: (debateId) =>
      control(debateId, 'pause', ['running'], 'Pause the debate', () => ({ status: 'paused' })),
    async resume(debateId) {
      const debate = await control(debateId, 'resume', ['paused'], 'Resume the debate', () => ({
        status: 'running',
        reason: null,
      }));
      drive(debateId);
      return debate;
    },
    async stop(debateId) {
      const debate = await control(debateId, 'stop', OPEN, 'Stop the debate', () => ({
        status: 'stopped',
        reason: 'Stopped by the operator',
      }));
      rounds.cancel(debateId);
      milestone(debateId, 'end');
      return debate;
    },
    async exportMarkdown(debateId) {
      const record = await requireDebate(debateId);
      return debateToMarkdown({
        debate: await publicView(record),
        rounds: await store.listRounds(debateId),
        nameOf: await names(record),
      });
    },
    snapshot: (debateId) => snapshot(debateId),
    async postNote(debateId, note) {
      const record = await requireDebate(debateId);
      await writer.appendNote(record.roomId, note);
    },
    async recover() {
      const running = await store.listDebatesByStatus(['running']);
      for (const record of running) drive(record.id);
      return running.length;
    },
    async idle() {
      while (background.size > 0) await Promise.allSettled([...background]);
    },
    async close() {
      rounds.cancelAll();
      await Promise.allSettled([...loops.values()]);
    },
  };
}
