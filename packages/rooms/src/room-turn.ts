/**
 * A turn: one participant answering one trigger (an operator message, a relayed reply, an approval's result).
 * It builds the prompt (system prompt, then the room's history), stores its streaming placeholder, asks the
 * scheduler to run the model call, and handles what came back: text, read tools (then the model is called again,
 * up to the turn's tool-call limit), proposals (the turn ends `awaiting_approval`), or an error. The turn ends with
 * a {@link TurnOutcome}; what follows (relay, a debate's next speaker…) is the caller's business.
 */
import {
  HalError,
  type LanguageModel,
  type PromptMessage,
  type Room,
  type RoomMessage,
  type TurnStatus,
  type Usage,
} from '@hal-ai/spec';
import type { ToolRegistry } from '@hal-ai/tools';
import { LRUCache } from 'lru-cache';
import type {
  MaybePromise,
  RoomAuditEntry,
  RoomOperator,
  RoomParticipant,
  RoomParticipantSummary,
} from './room-engine-types.js';
import {
  CANCELLED,
  consumeModelStream,
  type ModelStreamOutcome,
  textOf,
  toErrorInfo,
} from './room-model-stream.js';
import { buildHistory, buildSystemPrompt, type PageContext, type SystemPromptInput } from './room-prompt.js';
import type { RoomRedact } from './room-redaction.js';
import type { RoomStore, TurnRecord } from './room-store.js';
import type { ToolCalls } from './room-tool-calls.js';
import { createTurnRead, type TurnRead } from './room-turn-read.js';
import type { TurnScheduler } from './room-turn-scheduler.js';
import type { RoomWriter } from './room-writer.js';

/** What a turn is started with. */
export interface TurnRequest {
  roomId: string;
  roomKind: Room['kind'];
  participant: RoomParticipant;
  operator: RoomOperator | null;
  page: PageContext | string | null;
  relayDepth: 0 | 1;
  relayedFrom: string | null;
  /** The name of the model whose reply relayed to this turn. */
  relayedBy: string | null;
  triggerMessageId: string | null;
  /**
   * The unified room's participants as the post read them: a post's turns share that one read instead of each
   * listing them again (a relay, started later, lists them afresh).
   */
  participants?: RoomParticipantSummary[];
  /**
   * The room's history as the post left it, read once for all of a post's turns (their first model call):
   * another turn's placeholder adds nothing to a prompt, so each turn reading it again would only repeat work.
   */
  history?: () => Promise<RoomMessage[]>;
  /**
   * What the turn whose reply relayed to this one read (a relayed turn starts with it: see `createTurnRead`), so an
   * instruction a page planted in one model's reply still marks the proposals of the model it calls.
   */
  relayedRead?: TurnRead;
  /**
   * A prompt the caller wrote instead of the room's history (a debate's moderator and speakers): the system prompt
   * is `system` after the skill and identity, then `messages`; the turn's own replies and tool results follow.
   */
  brief?: { system: string; messages: PromptMessage[] };
}

/** How a turn ended. */
export interface TurnOutcome {
  status: TurnStatus;
  /** The text of the turn's replies, joined by newlines ('' when there was none). */
  text: string;
  /** The turn's last assistant message (null if it never got that far). */
  lastMessageId: string | null;
  /** The turn stopped at its tool-call limit. */
  capped: boolean;
  /** The usage its providers reported, summed over the turn's model calls (null when none reported any). */
  usage: Usage | null;
  /** What the turn read (handed to the turns its reply relays to). */
  read: TurnRead;
}

/** A turn that has been started. */
export interface StartedTurn {
  turnId: string;
  connectionId: string;
  /** Settles (never rejects) when the turn has ended. */
  done: Promise<TurnOutcome>;
}

/** Settings of {@link createTurns}. */
export interface TurnsSettings<C> {
  store: RoomStore;
  writer: RoomWriter;
  registry: ToolRegistry<C>;
  toolCalls: ToolCalls;
  scheduler: TurnScheduler;
  /** The host's redaction (see `room-redaction.ts`): every model-bound prompt passes it. */
  redact: RoomRedact;
  skill: string;
  listParticipants(): MaybePromise<RoomParticipantSummary[]>;
  limits: { toolCallsPerTurn: number; historyMessages: number; maxOutputTokens?: number };
  audit(entry: RoomAuditEntry): Promise<void>;
  /** Adds one model call's reported usage to its room's count (the room's token budget). */
  recordUsage(roomId: string, usage: Usage): Promise<void>;
  onTurnError?(connectionId: string, error: NonNullable<ModelStreamOutcome['error']>): MaybePromise<void>;
  reportError(error: unknown): void;
}

/** The running turns of an engine. */
export interface Turns {
  /** A new turn's record (status `running`), to be stored by the caller or by {@link Turns.start}. */
  newRecord(request: TurnRequest): TurnRecord;
  /** Starts a turn; `stored` is its record when the caller already stored it (a post stores its turns first). */
  start(request: TurnRequest, stored?: TurnRecord): Promise<StartedTurn>;
  /** Cancels the running turns that match; returns how many. */
  abortWhere(predicate: (turn: { turnId: string; connectionId: string; roomId: string }) => boolean): number;
}

/** System prompts kept for reuse: one per model and room, roughly (and per page the operator is on). */
const MAX_SYSTEM_PROMPTS = 512;

/**
 * System prompts by what they are built from (all but the skill, which is the engine's own), the least recently
 * used out past the limit. The same prompt comes back as the same string: building one copies the ~24 KB skill document (twice: trimmed,
 * then joined), and a provider's encoder may recognise a string it has seen by identity.
 */
function createSystemPrompts(skill: string) {
  const prompts = new LRUCache<string, string>({ max: MAX_SYSTEM_PROMPTS });
  return (input: Omit<SystemPromptInput, 'skill'>): string => {
    const key = JSON.stringify(input);
    let prompt = prompts.get(key);
    if (prompt === undefined) {
      prompt = buildSystemPrompt({ ...input, skill });
      prompts.set(key, prompt);
    }
    return prompt;
  };
}

/** Two usages added field by field (a field either reported stays; absent in both stays absent). */
function sumUsage(total: Usage | null, next: Usage): Usage {
  const sum: Usage = { ...(total ?? {}) };
  for (const key of Object.keys(next) as Array<keyof Usage>) {
    const value = next[key];
    if (typeof value === 'number') sum[key] = (sum[key] ?? 0) + value;
  }
  return sum;
}

/** Creates the turns of an engine. */
export function createTurns<C>(settings: TurnsSettings<C>): Turns {
  const { store, writer, registry, limits } = settings;
  const running = new Map<
    string,
    { controller: AbortController; turnId: string; connectionId: string; roomId: string }
  >();
  const systemPrompt = createSystemPrompts(settings.skill);

  /** One model call of a turn: a failed or refused call is an outcome with its error, never a throw. */
  const callModel = async (
    turn: TurnRecord,
    request: TurnRequest,
    prompt: Parameters<LanguageModel['doStream']>[0]['prompt'],
    placeholderId: string,
    step: number,
    signal: AbortSignal,
  ): Promise<ModelStreamOutcome> => {
    const { participant } = request;
    const tools = registry.declarations(participant.toolSelection);
    const options = {
      prompt,
      ...(tools.length > 0 ? { tools, toolChoice: 'auto' as const } : {}),
      ...(limits.maxOutputTokens ? { maxOutputTokens: limits.maxOutputTokens } : {}),
      ...(participant.reasoning && participant.reasoning !== 'off'
        ? { reasoning: participant.reasoning }
        : {}),
      abortSignal: signal,
      conversation: { roomId: request.roomId, turnId: turn.id, connectionId: participant.id },
    };
    try {
      return await settings.scheduler.schedule(
        { roomId: request.roomId, connectionId: participant.id, turnId: turn.id, step, signal },
        () =>
          consumeModelStream(participant.model, options, (text) =>
            writer.publish(request.roomId, {
              type: 'delta',
              messageId: placeholderId,
              connectionId: participant.id,
              text,
            }),
          ),
      );
    } catch (error) {
      return {
        blocks: [],
        toolCalls: [],
        usage: null,
        error: signal.aborted ? CANCELLED : toErrorInfo(error),
      };
    }
  };

  /** A failed model call: the placeholder keeps any partial text with the error; the turn fails (or is cancelled). */
  const endFailed = async (
    turn: TurnRecord,
    request: TurnRequest,
    placeholderId: string,
    outcome: ModelStreamOutcome,
    signal: AbortSignal,
  ): Promise<TurnStatus> => {
    const error = outcome.error ?? CANCELLED;
    const textBlocks = outcome.blocks.filter((block) => block.type === 'text');
    const message = await store.updateMessage(placeholderId, {
      status: textBlocks.length > 0 ? 'incomplete' : 'failed',
      content: textBlocks,
      usage: outcome.usage,
      error,
    });
    writer.publish(request.roomId, { type: 'message', message });
    const status = signal.aborted ? 'cancelled' : 'failed';
    await writer.setTurnStatus(turn, status, error);
    if (!signal.aborted) {
      await settings.audit({
        action: 'ai.turn.failed',
        actor: `ai:${request.participant.id}`,
        target: `turn:${turn.id}`,
        details: { roomId: request.roomId, messageId: placeholderId, error },
      });
      try {
        await settings.onTurnError?.(request.participant.id, error);
      } catch (nested) {
        settings.reportError(nested);
      }
    }
    return status;
  };

  const run = async (turn: TurnRecord, request: TurnRequest, signal: AbortSignal): Promise<TurnOutcome> => {
    const { participant } = request;
    const budget = { used: 0, limit: limits.toolCallsPerTurn };
    const read = createTurnRead(request.relayedRead);
    const turnText: string[] = [];
    let lastMessageId: string | null = null;
    let usage: Usage | null = null;
    // The turn's own messages: what follows a brief in the prompt of its later calls.
    const own: RoomMessage[] = [];
    const outcome = (status: TurnStatus, capped = false): TurnOutcome => ({
      status,
      text: turnText.join('\n'),
      lastMessageId,
      capped,
      usage,
      read: read.read,
    });
    const addUsage = async (reported: Usage | null) => {
      if (!reported) return;
      usage = sumUsage(usage, reported);
      await settings.recordUsage(request.roomId, reported);
    };
    try {
      const participants =
        request.roomKind === 'unified' ? (request.participants ?? (await settings.listParticipants())) : [];
      const names = new Map(participants.map((entry) => [entry.id, entry.name]));
      const system = systemPrompt(
        settings.redact({
          self: { id: participant.id, name: participant.name, identity: participant.identity },
          participants: participants.map((entry) => ({
            id: entry.id,
            name: entry.name,
            active: entry.active,
            ...(entry.identity?.role ? { role: entry.identity.role } : {}),
          })),
          roomKind: request.roomKind,
          operator: request.operator,
          page: request.page,
          relayedBy: request.relayedBy,
        }),
      );
      // A debate's brief carries operator and model text too: it passes the same boundary.
      const brief = request.brief ? settings.redact(request.brief) : undefined;
      let sharedHistory = request.history;
      for (let step = 0; ; step += 1) {
        if (signal.aborted) throw new HalError('interrupted', CANCELLED.message);
        const history = brief
          ? own
          : sharedHistory
            ? await sharedHistory()
            : await store.listMessages(request.roomId, { limit: limits.historyMessages });
        // Later calls of this turn (after its read tools ran) need the room as it is then.
        sharedHistory = undefined;
        read.addHistory(history);
        // Redacted again on the way out: a secret stored before the host knew it never reaches a model.
        const conversation = buildHistory(settings.redact(history), {
          selfId: participant.id,
          nameOf: (id) => names.get(id) ?? id,
        });
        // After a brief, the turn's own messages follow it directly (the brief already opened the conversation).
        const ownConversation =
          conversation[0]?.role === 'user' && own[0]?.role !== 'user' ? conversation.slice(1) : conversation;
        const prompt = brief
          ? [
              { role: 'system' as const, content: `${system}\n\n${brief.system}` },
              ...brief.messages,
              ...(own.length > 0 ? ownConversation : []),
            ]
          : [{ role: 'system' as const, content: system }, ...conversation];
        const placeholderRow = {
          roomId: request.roomId,
          role: 'assistant',
          connectionId: participant.id,
          model: participant.modelId,
          content: [],
          status: 'streaming',
          error: null,
          relayDepth: request.relayDepth,
          relayedFrom: request.relayedFrom,
          usage: null,
        } as const;
        // Checked right before the write: a reset aborts first, then waits for the room's writes in flight.
        if (signal.aborted) throw new HalError('interrupted', CANCELLED.message);
        const placeholder = await writer.appendMessage({ ...placeholderRow, content: [] });
        lastMessageId = placeholder.id;
        const reply = await callModel(turn, request, prompt, placeholder.id, step, signal);
        await addUsage(reply.usage);
        if (reply.error) return outcome(await endFailed(turn, request, placeholder.id, reply, signal));

        const text = textOf(reply.blocks);
        if (text) turnText.push(text);
        const calls = await settings.toolCalls.run(
          reply.toolCalls,
          {
            roomId: request.roomId,
            turnId: turn.id,
            connectionId: participant.id,
            toolSelection: participant.toolSelection,
            operator: request.operator,
            signal,
            read,
          },
          budget,
        );
        const message = await store.updateMessage(placeholder.id, {
          status: 'complete',
          // Each proposal's card follows the reply that made it.
          content: [
            ...reply.blocks,
            ...calls.proposals.map((action) => ({ type: 'action' as const, actionId: action.id })),
          ],
          usage: reply.usage,
          error: null,
        });
        writer.publish(request.roomId, { type: 'message', message });
        own.push(message);
        if (calls.results.length > 0) {
          const results = await writer.appendMessage({
            roomId: request.roomId,
            role: 'tool',
            connectionId: participant.id,
            model: participant.modelId,
            content: calls.results,
            status: 'complete',
            error: null,
            relayDepth: request.relayDepth,
            relayedFrom: request.relayedFrom,
            usage: null,
          });
          own.push(results);
        }
        // Proposals are announced after the message that shows their card.
        for (const action of calls.proposals) writer.announceAction(action);

        if (calls.capped) {
          await writer.appendNote(request.roomId, {
            code: 'tool_limit',
            params: { name: participant.name, limit: limits.toolCallsPerTurn },
          });
          await writer.setTurnStatus(turn, 'complete');
          return outcome('complete', true);
        }
        if (calls.proposals.length > 0) {
          await writer.setTurnStatus(turn, 'awaiting_approval');
          return outcome('awaiting_approval');
        }
        if (reply.toolCalls.length === 0) {
          await writer.setTurnStatus(turn, 'complete');
          return outcome('complete');
        }
      }
    } catch (error) {
      // Store errors after a reset (messages gone) or unexpected failures: never leave a turn "running".
      const status = signal.aborted ? 'cancelled' : 'failed';
      try {
        await writer.setTurnStatus(turn, status, signal.aborted ? CANCELLED : toErrorInfo(error));
      } catch (nested) {
        settings.reportError(nested);
      }
      if (!signal.aborted) settings.reportError(error);
      return outcome(status);
    }
  };

  const newRecord = (request: TurnRequest): TurnRecord => {
    const createdAt = writer.now();
    return {
      id: writer.newId(),
      roomId: request.roomId,
      connectionId: request.participant.id,
      status: 'running',
      relayDepth: request.relayDepth,
      relayedFrom: request.relayedFrom,
      triggerMessageId: request.triggerMessageId,
      error: null,
      createdAt,
      updatedAt: createdAt,
    };
  };

  return {
    newRecord,
    async start(request, stored) {
      const turn = stored ?? (await writer.createTurn(newRecord(request)));
      const controller = new AbortController();
      running.set(turn.id, {
        controller,
        turnId: turn.id,
        connectionId: turn.connectionId,
        roomId: turn.roomId,
      });
      const done = run(turn, request, controller.signal).finally(() => running.delete(turn.id));
      return { turnId: turn.id, connectionId: turn.connectionId, done };
    },
    abortWhere(predicate) {
      let count = 0;
      for (const entry of running.values()) {
        if (!predicate(entry) || entry.controller.signal.aborted) continue;
        entry.controller.abort();
        count += 1;
      }
      return count;
    },
  };
}
