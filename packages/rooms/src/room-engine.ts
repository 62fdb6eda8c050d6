/**
 * The room engine, composed from its parts — read them in this order:
 * - `room-writer.ts`: every row the engine stores, announced as a live event;
 * - `room-turn.ts`: one participant answering (prompt, placeholder, model call, tool calls, end), using
 *   `room-model-stream.ts` (one model response), `room-tool-calls.ts` (its tool calls) and
 *   `room-turn-scheduler.ts` (when a model request is sent);
 * - `room-proposals.ts`: proposals, approval and rejection, and who continues after an approval;
 * - `room-relay.ts`: replies that mention other models;
 * - `room-local-commands.ts`: slash commands that never call a model.
 * This file wires them and holds what spans them: a post (addressing, then store, then turns), reset, recovery.
 */
import { type Action, type ContentBlock, HalError, type RoomMessage } from '@hal-ai/spec';
import { parseAddressing } from './room-addressing.js';
import { budgetNote, isBudgetExhausted, usageTokens } from './room-budget.js';
import type {
  PostMessageInput,
  PostMessageResult,
  RecoverInterruptedOptions,
  RoomAuditEntry,
  RoomEngine,
  RoomEngineSettings,
  RoomParticipant,
  RoomParticipantSummary,
  RunTurnInput,
} from './room-engine-types.js';
import { createLocalCommands } from './room-local-commands.js';
import { createProposals } from './room-proposals.js';
import { createRedactingEventHub, createRedactingRoomStore, type RoomRedact } from './room-redaction.js';
import { createRelay } from './room-relay.js';
import { expandSlashCommand, type ParsedSlashCommand, parseSlashCommand } from './room-slash-commands.js';
import { toPublicAction } from './room-store.js';
import { createToolCalls } from './room-tool-calls.js';
import { createTurns, type StartedTurn, type TurnRequest } from './room-turn.js';
import { createImmediateTurnScheduler } from './room-turn-scheduler.js';
import { createRoomWriter } from './room-writer.js';

const INTERRUPTED = { code: 'interrupted', message: 'HAL restarted before this finished' } as const;

/**
 * Creates the room engine. Everything is injected: store, event hub, tool registry, participants
 * (with their model instances), clock, id generator and the scheduler of model requests.
 *
 * @example
 * const engine = createRoomEngine({ store, events, registry, resolveParticipant, listParticipants, skill, toolContext });
 * const { message, turns } = await engine.postMessage({ roomId, operator, text: '@Claude 서버 상태는?' });
 */
export function createRoomEngine<C>(settings: RoomEngineSettings<C>): RoomEngine {
  const { registry } = settings;
  // The redaction boundary (room-redaction.ts): every row and live event of the rooms passes it.
  const redact: RoomRedact = settings.redact ?? (<T>(value: T) => value);
  const store = settings.redact ? createRedactingRoomStore(settings.store, redact) : settings.store;
  const events = settings.redact
    ? createRedactingEventHub(settings.events, redact, settings.redactHeld)
    : settings.events;
  const clock = settings.clock ?? (() => new Date());
  const limits = {
    toolCallsPerTurn: settings.limits?.toolCallsPerTurn ?? 20,
    historyMessages: settings.limits?.historyMessages ?? 200,
    ...(settings.limits?.maxOutputTokens ? { maxOutputTokens: settings.limits.maxOutputTokens } : {}),
  };
  const background = new Set<Promise<unknown>>();

  const reportError = (error: unknown) => {
    try {
      settings.onError?.(error);
    } catch {
      // A failing error reporter must not break a turn.
    }
  };
  const track = (work: Promise<unknown>) => {
    const guarded = work.catch(reportError).finally(() => background.delete(guarded));
    background.add(guarded);
  };
  const audit = async (entry: RoomAuditEntry) => {
    try {
      await settings.onAudit?.(redact(entry));
    } catch (error) {
      reportError(error);
    }
  };

  const writer = createRoomWriter({
    store,
    events,
    clock,
    newId: settings.newId ?? (() => globalThis.crypto.randomUUID()),
  });
  const proposals = createProposals({
    store,
    registry,
    writer,
    clock,
    redact,
    ttlMs: settings.limits?.proposalTtlMs ?? 24 * 60 * 60 * 1000,
    toolContext: settings.toolContext,
    audit,
    nameOf: async (connectionId) => (await settings.resolveParticipant(connectionId))?.name,
    continueTurn: ({ roomId, connectionId, operator, triggerMessageId }) =>
      track(
        (async () => {
          const participant = await settings.resolveParticipant(connectionId);
          const room = await store.getRoom(roomId);
          if (!participant?.active || !room) return;
          if (isBudgetExhausted(room)) {
            await writer.appendNote(room.id, budgetNote(room));
            return;
          }
          await startTurn({
            roomId: room.id,
            roomKind: room.kind,
            participant,
            operator,
            page: null,
            relayDepth: 0,
            relayedFrom: null,
            relayedBy: null,
            triggerMessageId,
          });
        })(),
      ),
  });
  const scheduler = settings.scheduler ?? createImmediateTurnScheduler();
  const turns = createTurns({
    store,
    writer,
    registry,
    toolCalls: createToolCalls({
      registry,
      toolContext: settings.toolContext,
      propose: (input) => proposals.proposeFromTurn(input),
    }),
    scheduler,
    redact,
    skill: settings.skill,
    listParticipants: settings.listParticipants,
    limits,
    audit,
    async recordUsage(roomId, usage) {
      const tokens = usageTokens(usage);
      if (tokens > 0) await store.addRoomUsage(roomId, tokens);
    },
    ...(settings.onTurnError ? { onTurnError: settings.onTurnError } : {}),
    reportError,
  });
  const relay = createRelay({
    writer,
    listParticipants: settings.listParticipants,
    resolveParticipant: settings.resolveParticipant,
    startRelayedTurn: async (source, { target, sourceMessageId, read }) => {
      const room = await store.getRoom(source.roomId);
      if (room && isBudgetExhausted(room)) {
        await writer.appendNote(room.id, budgetNote(room));
        return { done: Promise.resolve() };
      }
      const started = await startTurn({
        roomId: source.roomId,
        roomKind: source.roomKind,
        participant: target,
        operator: source.operator,
        page: source.page,
        relayDepth: 1,
        relayedFrom: sourceMessageId,
        relayedBy: source.participant.name,
        triggerMessageId: sourceMessageId,
        ...(read ? { relayedRead: read } : {}),
      });
      return { done: started.done };
    },
  });

  /** Starts a turn in the background; when it ends, its reply may relay (unified room). */
  const startTurn = async (
    request: TurnRequest,
    stored?: Parameters<typeof turns.start>[1],
  ): Promise<StartedTurn> => {
    const started = await turns.start(request, stored);
    track(
      started.done.then(async (outcome) => {
        if (outcome.capped || !outcome.lastMessageId) return;
        if (outcome.status !== 'complete' && outcome.status !== 'awaiting_approval') return;
        await relay.afterReply(request, outcome.text, outcome.lastMessageId, outcome.read);
      }),
    );
    return started;
  };

  const requireRoom = async (roomId: string) => {
    const room = await store.getRoom(roomId);
    if (!room) throw new HalError('not_found', `No room ${roomId}`);
    return room;
  };

  /** The turns a post starts; for the unified room also the participant list it read (shared by the turns). */
  const resolveTargets = async (
    room: { kind: 'unified' | 'direct' | 'debate'; connectionId: string | null },
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

  const resetRoom = async (roomId: string): Promise<{ cancelled: Action[] }> => {
    await requireRoom(roomId);
    turns.abortWhere((entry) => entry.roomId === roomId);
    // The room's turns other processes run stop too, and their last writes land before the history is cleared.
    await settings.remoteTurns?.stop({ roomId });
    // What the room's turns were still writing lands before the history is cleared, not after.
    await writer.settled(roomId);
    await store.clearMessages(roomId);
    const cancelled = await store.cancelPendingActions(roomId, writer.now());
    for (const record of cancelled) writer.announceAction(record);
    return { cancelled: cancelled.map(toPublicAction) };
  };

  const runLocalCommand = createLocalCommands({
    registry,
    listParticipants: settings.listParticipants,
    resolveParticipant: settings.resolveParticipant,
    ...(settings.commands ? { commands: settings.commands } : {}),
    resetRoom,
  });

  const postMessage = async (posted: PostMessageInput): Promise<PostMessageResult> => {
    // A secret the operator pastes is gone before addressing, storage, the answer and every prompt.
    const input = redact(posted);
    const room = await requireRoom(input.roomId);
    if (room.kind === 'debate') {
      throw new HalError(
        'validation_failed',
        'A debate room is driven by its controls (inject, redirect, answer, pause, resume, stop)',
      );
    }
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
      const answer = await runLocalCommand(room, command.definition.name, command.values, input.operator);
      const message = await writer.appendMessage(operatorMessage);
      const note = await writer.appendNote(room.id, answer);
      return { message, turns: [], note };
    }

    // Addressing is checked before anything is stored: a refused message leaves no trace.
    const { targets, participants } = await resolveTargets(room, input.text);
    // A spent budget is a hard stop: the operator's words are kept, and HAL says why nobody answers.
    if (isBudgetExhausted(room)) {
      const message = await writer.appendMessage(operatorMessage);
      const note = await writer.appendNote(room.id, budgetNote(room));
      return { message, turns: [], note };
    }
    const requestsFor = (triggerMessageId: string | null): TurnRequest[] =>
      targets.map((participant) => ({
        roomId: room.id,
        roomKind: room.kind,
        participant,
        operator: input.operator,
        page: input.context?.page ?? null,
        relayDepth: 0,
        relayedFrom: null,
        relayedBy: null,
        triggerMessageId,
        ...(participants ? { participants } : {}),
      }));
    // Store, then send: the message and its turns exist before any model request leaves.
    const message = await writer.appendMessage(operatorMessage);
    const requests = requestsFor(message.id);
    const records = [];
    for (const request of requests) records.push(await writer.createTurn(turns.newRecord(request)));
    // Read once for all this post's turns (another turn's placeholder adds nothing to a prompt).
    let historyRead: Promise<RoomMessage[]> | undefined;
    const history = () => {
      historyRead ??= store.listMessages(room.id, { limit: limits.historyMessages });
      return historyRead;
    };
    const started: PostMessageResult['turns'] = [];
    for (const [index, request] of requests.entries()) {
      const turn = await startTurn({ ...request, history }, records[index]);
      started.push({ turnId: turn.turnId, connectionId: turn.connectionId });
    }
    return { message, turns: started };
  };

  const recoverInterrupted = async (options: RecoverInterruptedOptions = {}) => {
    const keep = options.keep ?? (() => false);
    const stale = (await store.listTurns({ status: 'running' })).filter(
      (turn) => !keep({ kind: 'turn', id: turn.id }),
    );
    for (const turn of stale) {
      await writer.setTurnStatus(turn, 'interrupted', INTERRUPTED);
      // A turn a restart cut off failed like any other: it leaves the same audit trail.
      await audit({
        action: 'ai.turn.failed',
        actor: `ai:${turn.connectionId}`,
        target: `turn:${turn.id}`,
        details: { roomId: turn.roomId, error: INTERRUPTED },
      });
    }
    const messages = (await store.listMessagesByStatus('streaming')).filter(
      (message) => !keep({ kind: 'message', id: message.id }),
    );
    for (const message of messages) {
      const updated = await store.updateMessage(message.id, { status: 'failed', error: INTERRUPTED });
      writer.publish(updated.roomId, { type: 'message', message: updated });
    }
    const executing = (await store.listActionsByStatus('executing')).filter(
      (action) => !keep({ kind: 'action', id: action.id }),
    );
    for (const action of executing) {
      const failed = await store.transitionAction(action.id, ['executing'], 'failed', {
        error: {
          code: 'interrupted',
          message: 'HAL restarted while this action ran; check its effect before retrying',
        },
      });
      if (failed) writer.announceAction(failed);
    }
    return { turns: stale.length, messages: messages.length, actions: executing.length };
  };

  const runTurn = async (input: RunTurnInput) => {
    const room = await requireRoom(input.roomId);
    const participant = await settings.resolveParticipant(input.connectionId);
    if (!participant?.active) throw new HalError('connection_inactive', `Not active: ${input.connectionId}`);
    const started = await startTurn({
      roomId: room.id,
      roomKind: room.kind,
      participant:
        input.tools === false ? { ...participant, toolSelection: { preset: 'none' } } : participant,
      operator: input.operator,
      page: null,
      relayDepth: 0,
      relayedFrom: null,
      relayedBy: null,
      triggerMessageId: input.triggerMessageId ?? null,
      brief: input.brief,
    });
    return {
      turnId: started.turnId,
      done: started.done,
      cancel: () => turns.abortWhere((entry) => entry.turnId === started.turnId) > 0,
    };
  };

  return {
    postMessage,
    runTurn,
    approveAction: (input) => proposals.approve(input),
    rejectAction: (input) => proposals.reject(input),
    createExternalProposal: (input) => proposals.createExternal(input),
    describeAction: (actionId) => proposals.describe(actionId),
    resetRoom,
    recoverInterrupted,
    cancelTurnsOf: (connectionId) => turns.abortWhere((entry) => entry.connectionId === connectionId),
    cancelTurnsIn: (roomId) => turns.abortWhere((entry) => entry.roomId === roomId),
    async idle() {
      while (background.size > 0) await Promise.allSettled([...background]);
    },
  };
}
