/**
 * Proposals and their approval: a write or high tool call (from a model's turn, or from an MCP client) becomes an
 * immutable stored proposal; the operator approves it (executed exactly once, arguments re-checked) or rejects it
 * (never executed). After an approval the proposing connection continues in a new turn
 * ({@link ProposalsSettings.continueTurn}, chosen in one place: `continuationOf`).
 */
import {
  type Action,
  type ErrorInfo,
  HalError,
  type RoomMessage,
  type RoomNote,
  type ToolRisk,
} from '@hal-ai/spec';
import {
  argsHash,
  canonicalArgs,
  executeTool,
  type ToolOutcome,
  type ToolRegistry,
  validateArgs,
} from '@hal-ai/tools';
import type {
  ActionDescription,
  ExternalProposalInput,
  MaybePromise,
  RoomAuditEntry,
  RoomOperator,
  ToolContextRequest,
} from './room-engine-types.js';
import { toErrorInfo } from './room-model-stream.js';
import type { RoomRedact } from './room-redaction.js';
import { type ActionRecord, type NewActionRecord, type RoomStore, toPublicAction } from './room-store.js';
import { readWebContent, type TurnRead } from './room-turn-read.js';
import type { RoomWriter } from './room-writer.js';

/** A tool as a proposal needs it. */
export interface ProposedTool {
  name: string;
  risk: ToolRisk;
  identifiers?: (args: unknown) => string[];
}

/** Where a proposal comes from. */
export type ProposalOrigin = Pick<
  NewActionRecord,
  'roomId' | 'connectionId' | 'source' | 'toolCallId' | 'turnId' | 'clientName'
>;

/** A turn to continue after an approval. */
export interface Continuation {
  roomId: string;
  connectionId: string;
  operator: RoomOperator;
  /** The message the continuing turn answers (the tool result or note of the decision). */
  triggerMessageId: string;
}

/** Settings of {@link createProposals}. */
export interface ProposalsSettings<C> {
  store: RoomStore;
  registry: ToolRegistry<C>;
  writer: RoomWriter;
  clock: () => Date;
  /** The host's redaction (see `room-redaction.ts`): applied to arguments before they are hashed and stored. */
  redact: RoomRedact;
  /** How long a proposal can be approved. */
  ttlMs: number;
  toolContext(request: ToolContextRequest): MaybePromise<C>;
  audit(entry: RoomAuditEntry): Promise<void>;
  /** Starts the turn that continues after an approval (the engine runs it in the background). */
  continueTurn(continuation: Continuation): void;
  /** A connection's name, for the note of a proposal its MCP server made. */
  nameOf?(connectionId: string): MaybePromise<string | undefined>;
}

/** The proposal part of the engine. */
export interface Proposals {
  /** A model's write/high call in a turn: stored, audited; the caller shows its card and announces it. */
  proposeFromTurn(input: {
    tool: ProposedTool;
    args: unknown;
    roomId: string;
    connectionId: string;
    turnId: string;
    toolCallId: string;
    read: TurnRead;
  }): Promise<ActionRecord>;
  createExternal(input: ExternalProposalInput): Promise<Action>;
  approve(input: { actionId: string; operator: RoomOperator }): Promise<Action>;
  reject(input: { actionId: string; operator: RoomOperator; reason: string }): Promise<Action>;
  describe(actionId: string): Promise<ActionDescription>;
}

/**
 * Which turn continues after an approval: the model connection that proposed it, in the proposal's room — whether
 * the model proposed it itself or through the MCP server attached to its run (a local CLI). An outside MCP client's
 * proposal (no connection) continues nobody (its client polls for the outcome).
 */
export function continuationOf(record: ActionRecord): { roomId: string; connectionId: string } | null {
  if (record.connectionId) {
    return { roomId: record.roomId, connectionId: record.connectionId };
  }
  return null;
}

/** A tool result as note text, cut at 4000 characters (the action keeps the whole result). */
function clip(output: unknown): string {
  let text: string;
  try {
    text = typeof output === 'string' ? output : (JSON.stringify(output) ?? String(output));
  } catch {
    text = String(output);
  }
  return text.length > 4_000 ? `${text.slice(0, 4_000)}…` : text;
}

/** Creates the {@link Proposals} of an engine. */
export function createProposals<C>(settings: ProposalsSettings<C>): Proposals {
  const { store, registry, writer, clock } = settings;

  /**
   * A proposal as it is stored, immutable from here on: validated arguments with their canonical form and hash
   * (approval re-checks them), the identifiers an operator retypes, and its expiry. `read` is what the proposing
   * turn read (none for an MCP client): the place to judge a proposal by what led to it.
   */
  const newProposal = (
    tool: ProposedTool,
    proposedArgs: unknown,
    origin: ProposalOrigin,
    read: TurnRead | null,
  ): NewActionRecord => {
    const args = settings.redact(proposedArgs);
    const created = clock();
    return {
      id: writer.newId(),
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
      expiresAt: new Date(created.getTime() + settings.ttlMs).toISOString(),
      reason: null,
      tainted: read !== null && readWebContent(read, registry),
    };
  };

  const auditProposal = (action: ActionRecord, actor: RoomAuditEntry['actor']) =>
    settings.audit({
      action: 'ai.action.propose',
      actor,
      target: `action:${action.id}`,
      details: {
        tool: action.tool,
        risk: action.risk,
        args: action.args,
        identifiers: action.identifiers,
        roomId: action.roomId,
      },
    });

  const requireAction = async (actionId: string) => {
    const record = await store.getAction(actionId);
    if (!record) throw new HalError('not_found', `No action ${actionId}`);
    return record;
  };

  /** The decision in the room: a tool result for the proposing model, otherwise a HAL note. */
  const appendDecision = (
    record: ActionRecord,
    output: unknown,
    isError: boolean,
    note: RoomNote,
  ): Promise<RoomMessage> => {
    if (record.source === 'model' && record.toolCallId && record.connectionId) {
      return writer.appendMessage({
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
    return writer.appendNote(record.roomId, note, [{ type: 'action', actionId: record.id }]);
  };

  /** Runs an approved proposal once; never throws (a failure is the outcome). */
  const execute = async (record: ActionRecord, operator: RoomOperator): Promise<ToolOutcome> => {
    if (canonicalArgs(record.args) !== record.argsCanonical || argsHash(record.args) !== record.argsHash) {
      return {
        ok: false,
        error: { code: 'validation_failed', message: 'The arguments changed after the proposal' },
      };
    }
    try {
      const context = await settings.toolContext({
        roomId: record.roomId,
        connectionId: record.connectionId,
        turnId: null,
        actionId: record.id,
        operator,
        purpose: 'approval',
      });
      // executeTool validates the arguments again and never throws.
      return await executeTool(registry, record.tool, record.args, context);
    } catch (error) {
      return { ok: false, error: toErrorInfo(error) };
    }
  };

  return {
    async proposeFromTurn(input) {
      const action = await store.createAction(
        newProposal(
          input.tool,
          input.args,
          {
            roomId: input.roomId,
            connectionId: input.connectionId,
            source: 'model',
            toolCallId: input.toolCallId,
            turnId: input.turnId,
            clientName: null,
          },
          input.read,
        ),
      );
      await auditProposal(action, `ai:${input.connectionId}`);
      return action;
    },

    async createExternal(input) {
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
      const conversation = input.conversation;
      const room = conversation ? await store.getRoom(conversation.roomId) : await store.ensureUnifiedRoom();
      if (!room) throw new HalError('not_found', `No room ${conversation?.roomId}`);
      // Refused arguments never become a proposal (see ToolDefinition.precheck): the MCP client gets the error.
      if (tool.precheck) {
        const context = await settings.toolContext({
          roomId: room.id,
          connectionId: conversation?.connectionId ?? null,
          turnId: conversation?.turnId ?? null,
          actionId: null,
          operator: null,
          purpose: 'describe',
        });
        await tool.precheck(context, validated.value);
      }
      const action = await store.createAction(
        newProposal(
          tool,
          validated.value,
          {
            roomId: room.id,
            connectionId: conversation?.connectionId ?? null,
            source: input.source,
            toolCallId: null,
            turnId: conversation?.turnId ?? null,
            clientName: input.clientName,
          },
          null,
        ),
      );
      const note: RoomNote = conversation
        ? {
            code: 'approval_requested',
            params: {
              name: (await settings.nameOf?.(conversation.connectionId)) ?? conversation.connectionId,
              tool: tool.name,
              risk: tool.risk,
            },
          }
        : {
            code: 'approval_requested_client',
            params: { client: input.clientName, tool: tool.name, risk: tool.risk },
          };
      await writer.appendNote(room.id, note, [{ type: 'action', actionId: action.id }]);
      writer.announceAction(action);
      await auditProposal(action, `mcp:${input.clientName}`);
      return toPublicAction(action);
    },

    async approve({ actionId, operator }) {
      const record = await requireAction(actionId);
      if (
        record.status === 'proposed' &&
        record.expiresAt &&
        clock().getTime() > Date.parse(record.expiresAt)
      ) {
        const expired = await store.transitionAction(actionId, ['proposed'], 'cancelled', {
          decidedAt: writer.now(),
          error: { code: 'action_not_pending', message: 'The proposal expired' },
        });
        if (expired) writer.announceAction(expired);
        throw new HalError('action_not_pending', 'The proposal expired');
      }
      // Compare-and-set: of concurrent approvals exactly one wins; the others get 409.
      const executing = await store.transitionAction(actionId, ['proposed'], 'executing', {
        decidedBy: operator.username,
        decidedAt: writer.now(),
      });
      if (!executing) throw new HalError('action_not_pending', `Action ${actionId} is not pending`);
      writer.announceAction(executing);

      const outcome = await execute(executing, operator);
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
      writer.announceAction(final);
      // A proposal that came through a model's MCP server has no tool call to answer: the note carries the result,
      // which is how that model reads it when it continues.
      const decided = { operator: operator.username, tool: final.tool };
      const note: RoomNote = !outcome.ok
        ? { code: 'action_failed', params: { ...decided, error: outcome.error.message } }
        : final.source === 'mcp' && final.connectionId
          ? { code: 'action_executed_result', params: { ...decided, result: clip(outcome.output) } }
          : { code: 'action_executed', params: decided };
      const decision = await appendDecision(
        final,
        outcome.ok ? outcome.output : { error: outcome.error },
        !outcome.ok,
        note,
      );
      await settings.audit({
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
      const next = continuationOf(final);
      if (next) settings.continueTurn({ ...next, operator, triggerMessageId: decision.id });
      return toPublicAction(final);
    },

    async reject({ actionId, operator, reason }) {
      await requireAction(actionId);
      const trimmed = reason.trim() || 'no reason given';
      const rejected = await store.transitionAction(actionId, ['proposed'], 'rejected', {
        decidedBy: operator.username,
        decidedAt: writer.now(),
        reason: trimmed,
      });
      if (!rejected) throw new HalError('action_not_pending', `Action ${actionId} is not pending`);
      writer.announceAction(rejected);
      await appendDecision(rejected, `rejected by the operator: ${trimmed}`, true, {
        code: 'action_rejected',
        params: { operator: operator.username, tool: rejected.tool, reason: trimmed },
      });
      await settings.audit({
        action: 'ai.action.reject',
        actor: `operator:${operator.id}`,
        target: `action:${actionId}`,
        details: { tool: rejected.tool, reason: trimmed, source: rejected.source },
      });
      return toPublicAction(rejected);
    },

    async describe(actionId) {
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
    },
  };
}
