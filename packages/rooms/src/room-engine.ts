import {
  type Action,
  type ContentBlock,
  type ErrorInfo,
  HalError,
  type LanguageModel,
  type RoomEvent,
  type RoomMessage,
  type StreamPart,
  type ToolRisk,
  type TurnStatus,
  type Usage,
} from '@hal-ai/spec';
import {
  argsHash,
  canonicalArgs,
  executeTool,
  type ToolOutcome,
  type ToolRegistry,
  type ToolSelection,
  validateArgs,
} from '@hal-ai/tools';
import { extractMentions, parseAddressing } from './room-addressing.js';
import type { RoomEventHub } from './room-events.js';
import {
  buildHistory,
  buildSystemPrompt,
  type PageContext,
  type ParticipantIdentity,
  type SystemPromptInput,
} from './room-prompt.js';
import {
  expandSlashCommand,
  type ParsedSlashCommand,
  parseSlashCommand,
  SLASH_COMMANDS,
} from './room-slash-commands.js';
import {
  type ActionRecord,
  type NewActionRecord,
  type NewRoomMessage,
  type RoomStore,
  type TurnRecord,
  toPublicAction,
} from './room-store.js';

type MaybePromise<T> = T | Promise<T>;

/** A model connection taking part in rooms, as the app resolves it. */
export interface RoomParticipant {
  /** The connection id. */
  id: string;
  name: string;
  active: boolean;
  identity: ParticipantIdentity;
  /** The model instance to call (made by the app from `@hal-ai/providers`). */
  model: LanguageModel;
  /** The model id shown on messages. */
  modelId: string;
  /** Which tools this connection may use. */
  toolSelection: ToolSelection;
}

/** A participant as the participant list shows it (no model needed). */
export interface RoomParticipantSummary {
  id: string;
  name: string;
  active: boolean;
  identity?: Partial<ParticipantIdentity>;
}

/** The operator acting. */
export interface RoomOperator {
  id: string;
  username: string;
}

/** What the app needs to build a tool context (`toolContext`). */
export interface ToolContextRequest {
  roomId: string;
  /** The model connection whose call this is (null for MCP requests). */
  connectionId: string | null;
  /** The turn calling a read tool (null for approvals). */
  turnId: string | null;
  /** The proposal being executed or described. */
  actionId: string | null;
  /** The operator who approved (approvals) or who started the conversation (turns), if known. */
  operator: RoomOperator | null;
  /** `turn`: a read tool called by a model; `approval`: an approved proposal; `describe`: computing impact. */
  purpose: 'turn' | 'approval' | 'describe';
}

/** An audit record the engine asks the app to write (the app redacts and chains it). */
export interface RoomAuditEntry {
  action: 'ai.action.propose' | 'ai.action.execute' | 'ai.action.reject' | 'ai.turn.failed';
  actor: `operator:${string}` | `ai:${string}` | `mcp:${string}`;
  target: string;
  details: Record<string, unknown>;
}

/** Limits of the engine. */
export interface RoomEngineLimits {
  /** Tool calls one turn may make (default 20). */
  toolCallsPerTurn?: number;
  /** How long a proposal can be approved (default 24 h). */
  proposalTtlMs?: number;
  /** Messages of history sent to a model (default 200, the most recent). */
  historyMessages?: number;
  /** Passed to the model as `maxOutputTokens`, if set. */
  maxOutputTokens?: number;
  /**
   * The longest that events and stores off the way to the models wait for a busy dispatch line before they run
   * anyway (default 250 ms; a burst of 64 posts keeps the line ~100–200 ms on a 2-core machine).
   */
  lineDeferMs?: number;
}

/** Callbacks for local slash commands that change things outside the rooms. */
export interface RoomCommandHandlers {
  /** `/model <name>` in a direct room; throws e.g. `model_unavailable`. Returns the note to show. */
  setModel?(connectionId: string, model: string, operator: RoomOperator): MaybePromise<string | undefined>;
}

/** Settings of {@link createRoomEngine}. */
export interface RoomEngineSettings<C> {
  store: RoomStore;
  events: RoomEventHub;
  registry: ToolRegistry<C>;
  resolveParticipant(connectionId: string): MaybePromise<RoomParticipant | undefined>;
  /** Every connection in connection order (active or not). */
  listParticipants(): MaybePromise<RoomParticipantSummary[]>;
  /** The skill document every system prompt starts with. */
  skill: string;
  toolContext(request: ToolContextRequest): MaybePromise<C>;
  clock?: () => Date;
  newId?: () => string;
  limits?: RoomEngineLimits;
  commands?: RoomCommandHandlers;
  onAudit?(entry: RoomAuditEntry): MaybePromise<void>;
  /** A turn failed with a provider error (the app may set the connection to `reauth_required`). */
  onTurnError?(connectionId: string, error: ErrorInfo): MaybePromise<void>;
  /** Errors of callbacks and background work that have nobody else to go to. */
  onError?(error: unknown): void;
}

/** Input of {@link RoomEngine.postMessage}. */
export interface PostMessageInput {
  roomId: string;
  operator: RoomOperator;
  text: string;
  context?: { page?: PageContext | string | null };
  /** Extra context blocks (e.g. fetched web pages) attached to the operator message. */
  attachments?: Array<Extract<ContentBlock, { type: 'context' }>>;
}

/** Output of {@link RoomEngine.postMessage}. */
export interface PostMessageResult {
  message: RoomMessage;
  turns: Array<{ turnId: string; connectionId: string }>;
  /** The HAL note a local slash command produced, if any. */
  note?: RoomMessage;
}

/** Output of {@link RoomEngine.describeAction}. */
export interface ActionDescription {
  action: Action;
  impact: unknown;
  identifiers: string[];
}

/** The room engine: turns, relay, proposals and their approval. */
export interface RoomEngine {
  /**
   * Stores an operator message and starts the turns it calls for (in the background). When its turns lead the
   * line, it resolves once their model requests have been written (a few event-loop turns later), so they are not
   * queued behind the caller's reply.
   */
  postMessage(input: PostMessageInput): Promise<PostMessageResult>;
  /** Executes a proposal exactly once (already authorised by the app) and continues the model asynchronously. */
  approveAction(input: { actionId: string; operator: RoomOperator }): Promise<Action>;
  /** Rejects a proposal; never executes it and never calls a model. */
  rejectAction(input: { actionId: string; operator: RoomOperator; reason: string }): Promise<Action>;
  /** An approval request from an MCP client: a HAL note and a proposal card in the unified room. */
  createExternalProposal(input: {
    tool: string;
    args: unknown;
    source: 'mcp';
    clientName: string;
  }): Promise<Action>;
  /** The action, its impact and identifiers, for the app's three-step dialog. */
  describeAction(actionId: string): Promise<ActionDescription>;
  /** Clears a room's history, cancels its pending proposals and stops its running turns. */
  resetRoom(roomId: string): Promise<{ cancelled: Action[] }>;
  /** Start-up: running turns → `interrupted`, streaming messages and executing actions → `failed` (`interrupted`). */
  recoverInterrupted(): Promise<{ turns: number; messages: number; actions: number }>;
  /** Stops the running turns of a connection (disabled or deleted); returns how many. */
  cancelTurnsOf(connectionId: string): number;
  /** Resolves when no turn or background work is running (tests, graceful shutdown). */
  idle(): Promise<void>;
}

interface TurnState {
  roomId: string;
  roomKind: 'unified' | 'direct';
  participant: RoomParticipant;
  operator: RoomOperator | null;
  page: PageContext | string | null;
  relayDepth: 0 | 1;
  relayedFrom: string | null;
  relayedBy: string | null;
  triggerMessageId: string | null;
  /**
   * The unified room's participants as the post read them: a post's turns share that one read
   * instead of each listing them again (a relay, started later, lists them afresh).
   */
  participants?: RoomParticipantSummary[];
  /**
   * The room's history as the post left it, read once for all of a post's turns (their first model call):
   * another turn's placeholder adds nothing to a prompt, so each turn reading it again would only repeat work.
   */
  history?: () => Promise<RoomMessage[]>;
  /**
   * Settles once the post's own rows (its message, this turn) are stored: a post's first requests leave before
   * that (see the dispatch line), and nothing of the answer is read before it.
   */
  stored?: Promise<unknown>;
}

interface StreamOutcome {
  blocks: ContentBlock[];
  toolCalls: Array<Extract<ContentBlock, { type: 'tool-call' }>>;
  usage: Usage | null;
  error: ErrorInfo | null;
}

const INTERRUPTED: ErrorInfo = { code: 'interrupted', message: 'HAL restarted before this finished' };
const CANCELLED: ErrorInfo = { code: 'interrupted', message: 'The turn was cancelled' };
/** System prompts kept for reuse: one per model and room, roughly (and per page the operator is on). */
const MAX_SYSTEM_PROMPTS = 512;

function toErrorInfo(error: unknown): ErrorInfo {
  if (HalError.isInstance(error)) return { code: error.code, message: error.message };
  if (error instanceof Error && error.name === 'AbortError') return CANCELLED;
  return { code: 'provider_unavailable', message: 'The model call failed' };
}

function reportedUsage(usage: Usage | undefined): Usage | null {
  if (!usage) return null;
  const fields = Object.entries(usage).filter(([, value]) => typeof value === 'number');
  return fields.length > 0 ? (Object.fromEntries(fields) as Usage) : null;
}

function textOf(blocks: readonly ContentBlock[]): string {
  return blocks.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/**
 * Creates the room engine. Everything is injected: store, event hub, tool registry, participants
 * (with their model instances), clock and id generator.
 *
 * @example
 * const engine = createRoomEngine({ store, events, registry, resolveParticipant, listParticipants, skill, toolContext });
 * const { message, turns } = await engine.postMessage({ roomId, operator, text: '@Claude 서버 상태는?' });
 */
export function createRoomEngine<C>(settings: RoomEngineSettings<C>): RoomEngine {
  const { store, events, registry } = settings;
  const clock = settings.clock ?? (() => new Date());
  const newId = settings.newId ?? (() => globalThis.crypto.randomUUID());
  const toolCallsPerTurn = settings.limits?.toolCallsPerTurn ?? 20;
  const proposalTtlMs = settings.limits?.proposalTtlMs ?? 24 * 60 * 60 * 1000;
  const historyMessages = settings.limits?.historyMessages ?? 200;
  const lineDeferMs = settings.limits?.lineDeferMs ?? 250;
  const running = new Map<string, { controller: AbortController; connectionId: string; roomId: string }>();
  const background = new Set<Promise<unknown>>();
  const relayed = new Set<string>();

  const now = () => clock().toISOString();
  const reportError = (error: unknown) => {
    try {
      settings.onError?.(error);
    } catch {
      // A failing error reporter must not break a turn.
    }
  };
  /**
   * A proposal as it is stored, immutable from here on: validated arguments with their canonical
   * form and hash (approval re-checks them), the identifiers an operator retypes, and its expiry.
   */
  const newProposal = (
    tool: { name: string; risk: ToolRisk; identifiers?: (args: unknown) => string[] },
    args: unknown,
    origin: Pick<
      NewActionRecord,
      'roomId' | 'connectionId' | 'source' | 'toolCallId' | 'turnId' | 'clientName'
    >,
  ): NewActionRecord => {
    const created = clock();
    return {
      id: newId(),
      ...origin,
      tool: tool.name,
      args,
      risk: tool.risk,
      identifiers: tool.identifiers?.(args) ?? [],
      status: 'proposed',
      createdAt: created.toISOString(),
      decidedBy: null,
      decidedAt: null,
      result: null,
      error: null,
      argsCanonical: canonicalArgs(args),
      argsHash: argsHash(args),
      expiresAt: new Date(created.getTime() + proposalTtlMs).toISOString(),
      reason: null,
    };
  };

  const audit = async (entry: RoomAuditEntry) => {
    try {
      await settings.onAudit?.(entry);
    } catch (error) {
      reportError(error);
    }
  };
  const track = (work: Promise<unknown>) => {
    const guarded = work.catch(reportError).finally(() => background.delete(guarded));
    background.add(guarded);
  };
  /**
   * The dispatch line: one holder at a time does the work that leads to a model request (a post storing its message
   * and turns; a turn reading its history and sending its request), and hands the line on once that request has been
   * written. Why: a burst of posts (64 panels at once) is read in ONE I/O phase, and undici writes a request on a
   * reused keep-alive socket only from a `setImmediate` callback (it first checks the idle socket,
   * GHSA-35p6-xmwp-9g52). If every post built and sent its requests inside its handler, no request would leave
   * before the whole burst was handled. In line, a burst runs post 1, its turns, post 2, its turns, …, so the first
   * requests leave while later posts still wait. Waiting turns go before waiting posts. Everything not on the way to
   * a model (events to the panels, streaming placeholders, a post's own answer) waits until nobody holds the line —
   * or until it has waited `limits.lineDeferMs`, so a line that never empties cannot hold it back for long (what
   * such work then emits waits anew).
   * With nobody in line (the usual case) a post and its turn start at once.
   *
   * A waiting turn's `post` is the post it belongs to (its `stored` promise), so a post's requests go together.
   */
  const waitingTurns: Array<{ resolve: () => void; post: unknown }> = [];
  const waitingPosts: Array<() => void> = [];
  let lineHeld = false;
  const deferred: Array<() => void> = [];
  let oldestDeferredAt = 0;
  const enterLine = (kind: 'post' | 'turn', post?: unknown): Promise<void> => {
    if (!lineHeld) {
      lineHeld = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      if (kind === 'turn') waitingTurns.push({ resolve, post });
      else waitingPosts.push(resolve);
    });
  };
  const runDeferred = () => {
    // Work queued while this runs (an event it publishes) joins the end, so the order is kept.
    while (deferred.length > 0) {
      const work = deferred.shift() as () => void;
      try {
        work();
      } catch (error) {
        reportError(error);
      }
    }
  };
  const handOn = () => {
    const next = waitingTurns.shift()?.resolve ?? waitingPosts.shift();
    if (next) {
      next();
      return;
    }
    lineHeld = false;
    runDeferred();
  };
  /**
   * Leaves the line. After a model request was started, the next holder waits two loop turns: in the first, undici
   * writes the request (from the immediate the request queued); only then does the next holder's work begin.
   */
  const leaveLine = (requestStarted: boolean, post?: unknown) => {
    // The next turn of the same post (a fan-out) builds its request at once, and their requests are written together
    // in the next loop turn: the loop turns in between would cost the post's last model more than its first gains.
    if (!requestStarted || (post !== undefined && waitingTurns[0]?.post === post)) handOn();
    else setImmediate(() => setImmediate(handOn));
  };
  /** Runs `work` now when nobody holds the line, else once the line is free (see above). */
  const whenLineFree = (work: () => void) => {
    if (!lineHeld && deferred.length === 0) {
      work();
      return;
    }
    if (deferred.length === 0) oldestDeferredAt = performance.now();
    deferred.push(work);
    if (performance.now() - oldestDeferredAt > lineDeferMs) runDeferred();
  };
  /**
   * Writes that wait for the line, by room (a post's message and turns, placeholders): a reset waits for them, so
   * nothing a post stored before the reset shows up after it.
   */
  const roomWrites = new Map<string, Set<Promise<unknown>>>();
  const trackRoomWrite = (roomId: string, write: Promise<unknown>) => {
    const writes = roomWrites.get(roomId) ?? new Set();
    roomWrites.set(roomId, writes);
    const settled = write.then(
      () => undefined,
      () => undefined,
    );
    writes.add(settled);
    void settled.then(() => {
      writes.delete(settled);
      if (writes.size === 0) roomWrites.delete(roomId);
    });
  };
  /** `work` started once the line is free; settles with it. */
  const afterLine = <T>(work: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      whenLineFree(() => {
        work().then(resolve, reject);
      });
    });

  /** Events wait while the line is held; their order is kept. */
  const emit = (roomId: string, event: RoomEvent) => whenLineFree(() => events.publish(roomId, event));

  const emitAction = (record: ActionRecord) =>
    emit(record.roomId, { type: 'action', action: toPublicAction(record) });

  const appendMessage = async (input: Omit<NewRoomMessage, 'id' | 'createdAt'> & { id?: string }) => {
    const message = await store.appendMessage({ ...input, id: input.id ?? newId(), createdAt: now() });
    emit(message.roomId, { type: 'message', message });
    return message;
  };
  const appendNote = (roomId: string, text: string, code?: string, extra: ContentBlock[] = []) =>
    appendMessage({
      roomId,
      role: 'system',
      connectionId: null,
      model: null,
      content: [code ? { type: 'note', text, code } : { type: 'note', text }, ...extra],
      status: 'complete',
      error: null,
      relayDepth: 0,
      relayedFrom: null,
      usage: null,
    });

  const setTurnStatus = async (turn: TurnRecord, status: TurnStatus, error: ErrorInfo | null = null) => {
    await store.updateTurn(turn.id, { status, error, updatedAt: now() });
    emit(turn.roomId, { type: 'turn', turnId: turn.id, connectionId: turn.connectionId, status });
  };

  const newTurn = (state: TurnState): TurnRecord => {
    const createdAt = now();
    return {
      id: newId(),
      roomId: state.roomId,
      connectionId: state.participant.id,
      status: 'running',
      relayDepth: state.relayDepth,
      relayedFrom: state.relayedFrom,
      triggerMessageId: state.triggerMessageId,
      error: null,
      createdAt,
      updatedAt: createdAt,
    };
  };
  const storeTurn = async (record: TurnRecord) => {
    const turn = await store.createTurn(record);
    emit(turn.roomId, { type: 'turn', turnId: turn.id, connectionId: turn.connectionId, status: 'running' });
    return turn;
  };

  /** Starts a turn. A post's turns come with their record, stored by the post (`state.stored`); others store it here. */
  const startTurn = async (
    state: TurnState,
    record?: TurnRecord,
  ): Promise<{ turnId: string; connectionId: string }> => {
    const turn = record ?? (await storeTurn(newTurn(state)));
    const controller = new AbortController();
    running.set(turn.id, { controller, connectionId: turn.connectionId, roomId: turn.roomId });
    // The turn waits for the dispatch line inside runTurn.
    track(runTurn(turn, state, controller.signal).finally(() => running.delete(turn.id)));
    return { turnId: turn.id, connectionId: turn.connectionId };
  };

  /**
   * Operator messages whose model requests are on their way before the message is stored (see the dispatch line),
   * by room: the prompts of the room's other turns include them meanwhile.
   */
  const pendingMessages = new Map<string, RoomMessage[]>();
  const readHistory = async (roomId: string): Promise<RoomMessage[]> => {
    // Taken before the read: a message stored during it is then in one of the two (or both: kept once).
    const pending = [...(pendingMessages.get(roomId) ?? [])];
    const stored = await store.listMessages(roomId, { limit: historyMessages });
    if (pending.length === 0) return stored;
    const ids = new Set(stored.map((message) => message.id));
    return [...stored, ...pending.filter((message) => !ids.has(message.id))];
  };

  /**
   * System prompts by what they are built from (all but the skill, which is the engine's own), most recent last.
   * The same prompt comes back as the same string: building one copies the ~24 KB skill document (twice: trimmed,
   * then joined), and the providers' encoder recognises a string it has seen at once by identity, where an equal
   * new string is compared in full.
   */
  const systemPrompts = new Map<string, string>();
  const systemPrompt = (input: Omit<SystemPromptInput, 'skill'>): string => {
    const key = JSON.stringify(input);
    let prompt = systemPrompts.get(key);
    if (prompt === undefined) prompt = buildSystemPrompt({ ...input, skill: settings.skill });
    systemPrompts.delete(key);
    systemPrompts.set(key, prompt);
    for (const oldest of systemPrompts.keys()) {
      if (systemPrompts.size <= MAX_SYSTEM_PROMPTS) break;
      systemPrompts.delete(oldest);
    }
    return prompt;
  };

  /** Reads one model response; no store writes per token, only `delta` events. */
  const consumeStream = async (
    model: LanguageModel,
    options: Parameters<LanguageModel['doStream']>[0],
    onDelta: (text: string) => void,
    /** Stored while the request is on its way; nothing is read (no delta published) before it is. */
    placeholder: Promise<unknown>,
  ): Promise<StreamOutcome> => {
    const blocks: ContentBlock[] = [];
    const toolCalls: StreamOutcome['toolCalls'] = [];
    let usage: Usage | null = null;
    let error: ErrorInfo | null = null;
    let finished = false;
    let reader: ReadableStreamDefaultReader<StreamPart> | undefined;
    // An adapter that ignores the abort signal must not keep a cancelled turn alive.
    const signal = options.abortSignal;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new HalError('interrupted', CANCELLED.message));
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
    aborted.catch(() => undefined);
    const opened = model.doStream(options);
    try {
      // A failed placeholder write is the turn's own failure (runTurn records it), not the model's.
      await placeholder;
    } catch (storeError) {
      opened.then(({ stream }) => stream.cancel()).catch(() => undefined);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      throw storeError;
    }
    try {
      const { stream } = await Promise.race([opened, aborted]);
      reader = stream.getReader();
      for (;;) {
        const { done, value: part } = await Promise.race([reader.read(), aborted]);
        if (done) break;
        if (part.type === 'text-delta') {
          if (!part.delta) continue;
          const last = blocks.at(-1);
          if (last?.type === 'text') last.text += part.delta;
          else blocks.push({ type: 'text', text: part.delta });
          onDelta(part.delta);
        } else if (part.type === 'tool-call') {
          const block = {
            type: 'tool-call' as const,
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            input: part.input,
          };
          blocks.push(block);
          toolCalls.push(block);
        } else if (part.type === 'finish') {
          finished = true;
          usage = reportedUsage(part.usage);
        } else if (part.type === 'error') {
          error = toErrorInfo(part.error);
          break;
        }
      }
    } catch (thrown) {
      error = toErrorInfo(thrown);
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      reader?.cancel().catch(() => undefined);
    }
    if (signal?.aborted) error = CANCELLED;
    if (!error && !finished) {
      error = { code: 'provider_bad_response', message: 'The stream ended before the model finished' };
    }
    return { blocks, toolCalls, usage, error };
  };

  const runTurn = async (turn: TurnRecord, state: TurnState, signal: AbortSignal): Promise<void> => {
    const { participant } = state;
    let callsMade = 0;
    const turnText: string[] = [];
    let lastAssistantId: string | null = null;
    let proposed = false;
    try {
      const participants =
        state.roomKind === 'unified' ? (state.participants ?? (await settings.listParticipants())) : [];
      const names = new Map(participants.map((entry) => [entry.id, entry.name]));
      const system = systemPrompt({
        self: { id: participant.id, name: participant.name, identity: participant.identity },
        participants: participants.map((entry) => ({
          id: entry.id,
          name: entry.name,
          active: entry.active,
          ...(entry.identity?.role ? { role: entry.identity.role } : {}),
        })),
        roomKind: state.roomKind,
        operator: state.operator,
        page: state.page,
        relayedBy: state.relayedBy,
      });
      const tools = registry.declarations(participant.toolSelection);

      let sharedHistory = state.history;
      for (;;) {
        if (signal.aborted) throw new HalError('interrupted', CANCELLED.message);
        await enterLine('turn', state.stored);
        let streaming: Promise<StreamOutcome>;
        let placeholder: { id: string };
        try {
          if (signal.aborted) throw new HalError('interrupted', CANCELLED.message);
          const history = sharedHistory ? await sharedHistory() : await readHistory(state.roomId);
          // Later calls of this turn (after its read tools ran) need the room as it is then.
          sharedHistory = undefined;
          const prompt = [
            { role: 'system' as const, content: system },
            ...buildHistory(history, { selfId: participant.id, nameOf: (id) => names.get(id) ?? id }),
          ];
          // The model request goes out first; its streaming placeholder is stored once the line is free (the first
          // token is hundreds of ms away), so that write is not on the path to any model.
          placeholder = { id: newId() };
          const stored = afterLine(async () => {
            await state.stored;
            return appendMessage({
              id: placeholder.id,
              roomId: state.roomId,
              role: 'assistant',
              connectionId: participant.id,
              model: participant.modelId,
              content: [],
              status: 'streaming',
              error: null,
              relayDepth: state.relayDepth,
              relayedFrom: state.relayedFrom,
              usage: null,
            });
          });
          trackRoomWrite(state.roomId, stored);
          streaming = consumeStream(
            participant.model,
            {
              prompt,
              ...(tools.length > 0 ? { tools, toolChoice: 'auto' as const } : {}),
              ...(settings.limits?.maxOutputTokens
                ? { maxOutputTokens: settings.limits.maxOutputTokens }
                : {}),
              abortSignal: signal,
            },
            (text) =>
              emit(state.roomId, {
                type: 'delta',
                messageId: placeholder.id,
                connectionId: participant.id,
                text,
              }),
            stored,
          );
        } finally {
          // Also after a failed history read: the next holder must not wait forever.
          leaveLine(true, state.stored);
        }
        lastAssistantId = placeholder.id;
        const outcome = await streaming;

        if (outcome.error) {
          const textBlocks = outcome.blocks.filter((block) => block.type === 'text');
          const status = textBlocks.length > 0 ? 'incomplete' : 'failed';
          const message = await store.updateMessage(placeholder.id, {
            status,
            content: textBlocks,
            usage: outcome.usage,
            error: outcome.error,
          });
          emit(state.roomId, { type: 'message', message });
          const cancelled = signal.aborted;
          await setTurnStatus(turn, cancelled ? 'cancelled' : 'failed', outcome.error);
          if (!cancelled) {
            await audit({
              action: 'ai.turn.failed',
              actor: `ai:${participant.id}`,
              target: `turn:${turn.id}`,
              details: { roomId: state.roomId, messageId: placeholder.id, error: outcome.error },
            });
            try {
              await settings.onTurnError?.(participant.id, outcome.error);
            } catch (error) {
              reportError(error);
            }
          }
          return;
        }

        const text = textOf(outcome.blocks);
        if (text) turnText.push(text);
        const results: Array<Extract<ContentBlock, { type: 'tool-result' }>> = [];
        const blocks = [...outcome.blocks];
        // Proposals are announced after the message that shows their card.
        const proposals: ActionRecord[] = [];
        let capped = false;
        for (const call of outcome.toolCalls) {
          if (callsMade >= toolCallsPerTurn) {
            capped = true;
            results.push({
              type: 'tool-result',
              toolCallId: call.toolCallId,
              toolName: call.toolName,
              output: {
                error: {
                  code: 'tool_limit',
                  message: `Not executed: limit of ${toolCallsPerTurn} tool calls per turn reached`,
                },
              },
              isError: true,
            });
            continue;
          }
          callsMade += 1;
          const result = await handleToolCall(turn, state, call, signal);
          results.push(result.result);
          if (result.action) {
            proposed = true;
            proposals.push(result.action);
            blocks.push({ type: 'action', actionId: result.action.id });
          }
        }
        const message = await store.updateMessage(placeholder.id, {
          status: 'complete',
          content: blocks,
          usage: outcome.usage,
          error: null,
        });
        emit(state.roomId, { type: 'message', message });
        if (results.length > 0) {
          await appendMessage({
            roomId: state.roomId,
            role: 'tool',
            connectionId: participant.id,
            model: participant.modelId,
            content: results,
            status: 'complete',
            error: null,
            relayDepth: state.relayDepth,
            relayedFrom: state.relayedFrom,
            usage: null,
          });
        }
        for (const action of proposals) emitAction(action);

        if (capped) {
          await appendNote(
            state.roomId,
            `${participant.name} reached the limit of ${toolCallsPerTurn} tool calls in one turn and stopped. Send a message to let it continue.`,
            'tool_limit',
          );
          await setTurnStatus(turn, 'complete');
          return;
        }
        if (proposed) {
          await setTurnStatus(turn, 'awaiting_approval');
          break;
        }
        if (outcome.toolCalls.length === 0) {
          await setTurnStatus(turn, 'complete');
          break;
        }
      }
      if (state.roomKind === 'unified' && lastAssistantId && turnText.length > 0) {
        await relayMentions(state, turnText.join('\n'), lastAssistantId);
      }
    } catch (error) {
      // The post could not store its message or this turn: the post fails with that error, and the turn, never
      // stored or announced, ends without a trace (its request was cancelled, nothing of the answer was read).
      const postFailed = await state.stored?.then(
        () => false,
        () => true,
      );
      if (postFailed) return;
      // Store errors after a reset (messages gone) or unexpected failures: never leave a turn "running".
      const info = signal.aborted ? CANCELLED : toErrorInfo(error);
      try {
        await setTurnStatus(turn, signal.aborted ? 'cancelled' : 'failed', info);
      } catch (nested) {
        reportError(nested);
      }
      if (!signal.aborted) reportError(error);
    }
  };

  const errorResult = (
    call: Extract<ContentBlock, { type: 'tool-call' }>,
    error: { code: string; message: string; issues?: unknown },
  ): Extract<ContentBlock, { type: 'tool-result' }> => ({
    type: 'tool-result',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    output: { error },
    isError: true,
  });

  const handleToolCall = async (
    turn: TurnRecord,
    state: TurnState,
    call: Extract<ContentBlock, { type: 'tool-call' }>,
    signal: AbortSignal,
  ): Promise<{ result: Extract<ContentBlock, { type: 'tool-result' }>; action?: ActionRecord }> => {
    const { participant } = state;
    const tool = registry.get(call.toolName);
    if (!tool) {
      return {
        result: errorResult(call, {
          code: 'not_found',
          message: `Unknown tool ${JSON.stringify(call.toolName.slice(0, 64))}`,
        }),
      };
    }
    if (!registry.isEnabled(call.toolName, participant.toolSelection)) {
      return {
        result: errorResult(call, {
          code: 'forbidden',
          message: `Tool ${call.toolName} is not enabled for this connection`,
        }),
      };
    }
    if (signal.aborted) return { result: errorResult(call, CANCELLED) };
    if (tool.risk === 'read') {
      const context = await settings.toolContext({
        roomId: state.roomId,
        connectionId: participant.id,
        turnId: turn.id,
        actionId: null,
        operator: state.operator,
        purpose: 'turn',
      });
      const outcome: ToolOutcome = await executeTool(
        registry,
        call.toolName,
        call.input,
        context,
        participant.toolSelection,
      );
      return {
        result: outcome.ok
          ? {
              type: 'tool-result',
              toolCallId: call.toolCallId,
              toolName: call.toolName,
              output: outcome.output,
            }
          : errorResult(call, outcome.error),
      };
    }
    const validated = validateArgs(tool, call.input);
    if (!validated.ok) {
      return {
        result: errorResult(call, {
          code: 'validation_failed',
          message: `Invalid arguments for ${call.toolName}`,
          issues: validated.issues,
        }),
      };
    }
    const action = await store.createAction(
      newProposal(tool, validated.value, {
        roomId: state.roomId,
        connectionId: participant.id,
        source: 'model',
        toolCallId: call.toolCallId,
        turnId: turn.id,
        clientName: null,
      }),
    );
    await audit({
      action: 'ai.action.propose',
      actor: `ai:${participant.id}`,
      target: `action:${action.id}`,
      details: {
        tool: action.tool,
        risk: action.risk,
        args: action.args,
        identifiers: action.identifiers,
        roomId: action.roomId,
      },
    });
    return {
      action,
      result: {
        type: 'tool-result',
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: `awaiting operator approval (action ${action.id})`,
      },
    };
  };

  const relayMentions = async (state: TurnState, text: string, sourceMessageId: string) => {
    // Names as the post saw them; each relayed target is still resolved (and checked active) afresh.
    const participants = state.participants ?? (await settings.listParticipants());
    const targets = extractMentions(text, participants, state.participant.id);
    if (targets.length === 0) return;
    if (state.relayDepth >= 1) {
      const called = targets
        .map((id) => `@${participants.find((entry) => entry.id === id)?.name ?? id}`)
        .join(', ');
      await appendNote(
        state.roomId,
        `${state.participant.name} called ${called}. Automatic replies stop after one relay — the next reaction waits for the operator.`,
        'relay_limit',
      );
      return;
    }
    for (const targetId of targets) {
      const key = `${sourceMessageId}:${targetId}`;
      if (relayed.has(key)) continue;
      relayed.add(key);
      const target = await settings.resolveParticipant(targetId);
      if (!target?.active) continue;
      await startTurn({
        roomId: state.roomId,
        roomKind: state.roomKind,
        participant: target,
        operator: state.operator,
        page: state.page,
        relayDepth: 1,
        relayedFrom: sourceMessageId,
        relayedBy: state.participant.name,
        triggerMessageId: sourceMessageId,
      });
    }
  };

  const requireRoom = async (roomId: string) => {
    const room = await store.getRoom(roomId);
    if (!room) throw new HalError('not_found', `No room ${roomId}`);
    return room;
  };

  /** The turns a post starts; for the unified room also the participant list it read (shared by the turns). */
  const resolveTargets = async (
    room: { kind: 'unified' | 'direct'; connectionId: string | null },
    text: string,
  ): Promise<{ targets: RoomParticipant[]; participants?: RoomParticipantSummary[] }> => {
    if (room.kind === 'direct') {
      const participant = room.connectionId
        ? await settings.resolveParticipant(room.connectionId)
        : undefined;
      if (!participant?.active) throw new HalError('connection_inactive', 'This connection is not active');
      return { targets: [participant] };
    }
    const participants = await settings.listParticipants();
    const addressing = parseAddressing(text, participants);
    if (addressing.unknown.length > 0) {
      throw new HalError(
        'unknown_addressee',
        `No participant named ${addressing.unknown.map((word) => `@${word}`).join(', ')}`,
        {
          details: { participants: participants.map((entry) => entry.name), unknown: addressing.unknown },
        },
      );
    }
    const ids =
      addressing.targets.length > 0
        ? addressing.targets
        : participants.filter((entry) => entry.active).map((entry) => entry.id);
    const inactive = participants.filter((entry) => addressing.targets.includes(entry.id) && !entry.active);
    if (inactive.length > 0) {
      throw new HalError(
        'connection_inactive',
        `Not active: ${inactive.map((entry) => entry.name).join(', ')}`,
        {
          details: { connections: inactive.map((entry) => entry.name) },
        },
      );
    }
    const resolved: RoomParticipant[] = [];
    for (const id of ids) {
      const participant = await settings.resolveParticipant(id);
      if (participant?.active) resolved.push(participant);
      else if (addressing.targets.length > 0) throw new HalError('connection_inactive', `Not active: ${id}`);
    }
    if (resolved.length === 0) throw new HalError('connection_inactive', 'No model connection is active');
    return { targets: resolved, participants };
  };

  const runLocalCommand = async (
    room: { id: string; kind: 'unified' | 'direct'; connectionId: string | null },
    command: string,
    values: Record<string, string>,
    operator: RoomOperator,
  ): Promise<string> => {
    if (command === 'help') {
      return SLASH_COMMANDS.map((entry) => `${entry.usage} — ${entry.description}`).join('\n');
    }
    if (command === 'tools') {
      const ids =
        room.kind === 'direct' && room.connectionId
          ? [room.connectionId]
          : (await settings.listParticipants()).filter((entry) => entry.active).map((entry) => entry.id);
      const lines: string[] = [];
      for (const id of ids) {
        const participant = await settings.resolveParticipant(id);
        if (!participant) continue;
        const names = registry.select(participant.toolSelection).map((tool) => `${tool.name} (${tool.risk})`);
        lines.push(`${participant.name}: ${names.length > 0 ? names.join(', ') : 'no tools'}`);
      }
      return lines.length > 0 ? lines.join('\n') : 'No active model.';
    }
    if (command === 'model') {
      const model = values.name ?? '';
      if (!room.connectionId)
        throw new HalError('command_needs_direct_room', '/model works only in a model room');
      if (!settings.commands?.setModel) throw new HalError('invalid_state', '/model is not available here');
      const note = await settings.commands.setModel(room.connectionId, model, operator);
      return note ?? `Model switched to ${model}.`;
    }
    // reset
    const { cancelled } = await resetRoom(room.id);
    return `New conversation: history cleared${cancelled.length > 0 ? `, ${cancelled.length} pending proposal(s) cancelled` : ''}.`;
  };

  const postMessage = async (input: PostMessageInput): Promise<PostMessageResult> => {
    // A post waits for the dispatch line (behind waiting turns) before it reads or stores anything.
    await enterLine('post');
    let holding = true;
    const leave = () => {
      if (holding) leaveLine(false);
      holding = false;
    };
    try {
      const room = await requireRoom(input.roomId);
      const parsed: ParsedSlashCommand | undefined = parseSlashCommand(input.text);
      const command = parsed ? expandSlashCommand(parsed, { roomKind: room.kind }) : undefined;
      const commandBlock: ContentBlock[] =
        parsed && command
          ? [
              {
                type: 'command',
                command: command.definition.name,
                args: parsed.args,
                ...(command.expansion ? { expansion: command.expansion } : {}),
              },
            ]
          : [];
      const operatorMessage = {
        roomId: room.id,
        role: 'user' as const,
        connectionId: null,
        model: null,
        content: [{ type: 'text' as const, text: input.text }, ...commandBlock, ...(input.attachments ?? [])],
        status: 'complete' as const,
        error: null,
        relayDepth: 0 as const,
        relayedFrom: null,
        usage: null,
      };

      if (parsed && command?.definition.kind === 'local') {
        // No model is called: a local command (which may cancel turns) runs outside the line.
        leave();
        const noteText = await runLocalCommand(room, command.definition.name, command.values, input.operator);
        const message = await appendMessage(operatorMessage);
        const note = await appendNote(room.id, noteText, `command_${command.definition.name}`);
        return { message, turns: [], note };
      }

      // Addressing is checked before anything is stored: a refused message leaves no trace.
      const { targets, participants } = await resolveTargets(room, input.text);
      // The message and its turns' rows are stored once the line is free, after the model requests they lead to
      // have left: nothing of an answer is read before (each turn's placeholder waits for `stored`), so no token and
      // no tool call can come from a message that was not stored. Until then it is pending: the room's prompts
      // include it.
      const pending: RoomMessage = { ...operatorMessage, id: newId(), seq: 0, createdAt: now() };
      const roomPending = pendingMessages.get(room.id) ?? [];
      roomPending.push(pending);
      pendingMessages.set(room.id, roomPending);
      const states: TurnState[] = targets.map((participant) => ({
        roomId: room.id,
        roomKind: room.kind,
        participant,
        operator: input.operator,
        page: input.context?.page ?? null,
        relayDepth: 0,
        relayedFrom: null,
        relayedBy: null,
        triggerMessageId: pending.id,
        ...(participants ? { participants } : {}),
      }));
      const records = states.map(newTurn);
      const stored = afterLine(async () => {
        try {
          const saved = await appendMessage({ ...operatorMessage, id: pending.id });
          for (const record of records) await storeTurn(record);
          return saved;
        } finally {
          const left = (pendingMessages.get(room.id) ?? []).filter((entry) => entry !== pending);
          if (left.length > 0) pendingMessages.set(room.id, left);
          else pendingMessages.delete(room.id);
        }
      });
      trackRoomWrite(room.id, stored);
      // Read once for all this post's turns (another turn's placeholder adds nothing to a prompt).
      let historyRead: Promise<RoomMessage[]> | undefined;
      const history = () => {
        historyRead ??= readHistory(room.id);
        return historyRead;
      };
      const turns: PostMessageResult['turns'] = [];
      for (const [index, state] of states.entries()) {
        // Each turn joins the line (turns go first), so when this post leaves it, its own turns follow.
        turns.push(await startTurn({ ...state, history, stored }, records[index]));
      }
      leave();
      // The caller's answer (the route's `202`) comes once the message is stored, after the model requests.
      const message = await stored;
      return { message, turns };
    } finally {
      leave();
    }
  };

  const requireAction = async (actionId: string) => {
    const record = await store.getAction(actionId);
    if (!record) throw new HalError('not_found', `No action ${actionId}`);
    return record;
  };

  const appendDecision = async (
    record: ActionRecord,
    output: unknown,
    isError: boolean,
    noteText: string,
  ) => {
    if (record.source === 'model' && record.toolCallId && record.connectionId) {
      return appendMessage({
        roomId: record.roomId,
        role: 'tool',
        connectionId: record.connectionId,
        model: null,
        content: [
          {
            type: 'tool-result',
            toolCallId: record.toolCallId,
            toolName: record.tool,
            output,
            ...(isError ? { isError: true } : {}),
          },
          { type: 'action', actionId: record.id },
        ],
        status: 'complete',
        error: null,
        relayDepth: 0,
        relayedFrom: null,
        usage: null,
      });
    }
    return appendNote(record.roomId, noteText, 'action_decided', [{ type: 'action', actionId: record.id }]);
  };

  const approveAction = async ({
    actionId,
    operator,
  }: {
    actionId: string;
    operator: RoomOperator;
  }): Promise<Action> => {
    const record = await requireAction(actionId);
    if (
      record.status === 'proposed' &&
      record.expiresAt &&
      clock().getTime() > Date.parse(record.expiresAt)
    ) {
      const expired = await store.transitionAction(actionId, ['proposed'], 'cancelled', {
        decidedAt: now(),
        error: { code: 'action_not_pending', message: 'The proposal expired' },
      });
      if (expired) emitAction(expired);
      throw new HalError('action_not_pending', 'The proposal expired');
    }
    const executing = await store.transitionAction(actionId, ['proposed'], 'executing', {
      decidedBy: operator.username,
      decidedAt: now(),
    });
    if (!executing) throw new HalError('action_not_pending', `Action ${actionId} is not pending`);
    emitAction(executing);

    let outcome: ToolOutcome;
    if (
      canonicalArgs(executing.args) !== executing.argsCanonical ||
      argsHash(executing.args) !== executing.argsHash
    ) {
      outcome = {
        ok: false,
        error: { code: 'validation_failed', message: 'The arguments changed after the proposal' },
      };
    } else {
      try {
        const context = await settings.toolContext({
          roomId: executing.roomId,
          connectionId: executing.connectionId,
          turnId: null,
          actionId,
          operator,
          purpose: 'approval',
        });
        // executeTool validates the arguments again and never throws.
        outcome = await executeTool(registry, executing.tool, executing.args, context);
      } catch (error) {
        outcome = { ok: false, error: toErrorInfo(error) };
      }
    }
    const finished = await store.transitionAction(
      actionId,
      ['executing'],
      outcome.ok ? 'executed' : 'failed',
      {
        result: outcome.ok ? outcome.output : null,
        error: outcome.ok
          ? null
          : { code: outcome.error.code as ErrorInfo['code'], message: outcome.error.message },
      },
    );
    const final = finished ?? (await requireAction(actionId));
    emitAction(final);
    const resultMessage = await appendDecision(
      final,
      outcome.ok ? outcome.output : { error: outcome.error },
      !outcome.ok,
      outcome.ok
        ? `${operator.username} approved ${final.tool}; it was executed.`
        : `${operator.username} approved ${final.tool}; it failed: ${outcome.error.message}`,
    );
    await audit({
      action: 'ai.action.execute',
      actor: `operator:${operator.id}`,
      target: `action:${actionId}`,
      details: {
        tool: final.tool,
        risk: final.risk,
        status: final.status,
        error: final.error,
        source: final.source,
      },
    });

    if (final.source === 'model' && final.connectionId) {
      const connectionId = final.connectionId;
      track(
        (async () => {
          const participant = await settings.resolveParticipant(connectionId);
          const room = await store.getRoom(final.roomId);
          if (!participant?.active || !room) return;
          await startTurn({
            roomId: room.id,
            roomKind: room.kind,
            participant,
            operator,
            page: null,
            relayDepth: 0,
            relayedFrom: null,
            relayedBy: null,
            triggerMessageId: resultMessage.id,
          });
        })(),
      );
    }
    return toPublicAction(final);
  };

  const rejectAction = async ({
    actionId,
    operator,
    reason,
  }: {
    actionId: string;
    operator: RoomOperator;
    reason: string;
  }): Promise<Action> => {
    await requireAction(actionId);
    const trimmed = reason.trim() || 'no reason given';
    const rejected = await store.transitionAction(actionId, ['proposed'], 'rejected', {
      decidedBy: operator.username,
      decidedAt: now(),
      reason: trimmed,
    });
    if (!rejected) throw new HalError('action_not_pending', `Action ${actionId} is not pending`);
    emitAction(rejected);
    await appendDecision(
      rejected,
      `rejected by the operator: ${trimmed}`,
      true,
      `${operator.username} rejected ${rejected.tool}: ${trimmed}`,
    );
    await audit({
      action: 'ai.action.reject',
      actor: `operator:${operator.id}`,
      target: `action:${actionId}`,
      details: { tool: rejected.tool, reason: trimmed, source: rejected.source },
    });
    return toPublicAction(rejected);
  };

  const createExternalProposal = async (input: {
    tool: string;
    args: unknown;
    source: 'mcp';
    clientName: string;
  }): Promise<Action> => {
    const tool = registry.get(input.tool);
    if (!tool) throw new HalError('not_found', `Unknown tool ${JSON.stringify(input.tool.slice(0, 64))}`);
    if (tool.risk === 'read')
      throw new HalError('invalid_state', `${tool.name} is a read tool: call it directly`);
    const validated = validateArgs(tool, input.args);
    if (!validated.ok) {
      throw new HalError('validation_failed', `Invalid arguments for ${tool.name}`, {
        details: { issues: validated.issues },
      });
    }
    const room = await store.ensureUnifiedRoom();
    const action = await store.createAction(
      newProposal(tool, validated.value, {
        roomId: room.id,
        connectionId: null,
        source: 'mcp',
        toolCallId: null,
        turnId: null,
        clientName: input.clientName,
      }),
    );
    await appendNote(
      room.id,
      `MCP client ${input.clientName} asks for approval to run ${tool.name} (${tool.risk}).`,
      'approval_requested',
      [{ type: 'action', actionId: action.id }],
    );
    emitAction(action);
    await audit({
      action: 'ai.action.propose',
      actor: `mcp:${input.clientName}`,
      target: `action:${action.id}`,
      details: {
        tool: action.tool,
        risk: action.risk,
        args: action.args,
        identifiers: action.identifiers,
        roomId: room.id,
      },
    });
    return toPublicAction(action);
  };

  const describeAction = async (actionId: string): Promise<ActionDescription> => {
    const record = await requireAction(actionId);
    const tool = registry.get(record.tool);
    let impact: unknown = null;
    if (tool?.impact) {
      const context = await settings.toolContext({
        roomId: record.roomId,
        connectionId: record.connectionId,
        turnId: null,
        actionId,
        operator: null,
        purpose: 'describe',
      });
      impact = (await tool.impact(context, record.args)) ?? null;
    }
    return { action: toPublicAction(record), impact, identifiers: [...record.identifiers] };
  };

  const abortWhere = (predicate: (entry: { connectionId: string; roomId: string }) => boolean): number => {
    let count = 0;
    for (const entry of running.values()) {
      if (!predicate(entry) || entry.controller.signal.aborted) continue;
      entry.controller.abort();
      count += 1;
    }
    return count;
  };

  const resetRoom = async (roomId: string): Promise<{ cancelled: Action[] }> => {
    await requireRoom(roomId);
    abortWhere((entry) => entry.roomId === roomId);
    // What posts of this room are still storing lands before the history is cleared, not after.
    await Promise.all(roomWrites.get(roomId) ?? []);
    await store.clearMessages(roomId);
    const cancelled = await store.cancelPendingActions(roomId, now());
    for (const record of cancelled) emitAction(record);
    return { cancelled: cancelled.map(toPublicAction) };
  };

  const recoverInterrupted = async () => {
    const turns = await store.listTurns({ status: 'running' });
    for (const turn of turns) {
      await setTurnStatus(turn, 'interrupted', INTERRUPTED);
      // A turn a restart cut off failed like any other: it leaves the same audit trail.
      await audit({
        action: 'ai.turn.failed',
        actor: `ai:${turn.connectionId}`,
        target: `turn:${turn.id}`,
        details: { roomId: turn.roomId, error: INTERRUPTED },
      });
    }
    const messages = await store.listMessagesByStatus('streaming');
    for (const message of messages) {
      const updated = await store.updateMessage(message.id, { status: 'failed', error: INTERRUPTED });
      emit(updated.roomId, { type: 'message', message: updated });
    }
    const executing = await store.listActionsByStatus('executing');
    for (const action of executing) {
      const failed = await store.transitionAction(action.id, ['executing'], 'failed', {
        error: {
          code: 'interrupted',
          message: 'HAL restarted while this action ran; check its effect before retrying',
        },
      });
      if (failed) emitAction(failed);
    }
    return { turns: turns.length, messages: messages.length, actions: executing.length };
  };

  return {
    postMessage,
    approveAction,
    rejectAction,
    createExternalProposal,
    describeAction,
    resetRoom,
    recoverInterrupted,
    cancelTurnsOf: (connectionId) => abortWhere((entry) => entry.connectionId === connectionId),
    async idle() {
      while (background.size > 0) await Promise.allSettled([...background]);
    },
  };
}
