/**
 * The tool calls of one model response: each call is refused (unknown tool, not enabled for the connection, over
 * the turn's limit, cancelled), run at once (`read` tools, and `write` tools whose `runsAtOnce` says so for these
 * arguments), or turned into a proposal (`write`/`high`, through `propose`). Every call gets a tool result for the model's history; proposals come back for the caller to show.
 */
import { type ContentBlock, HalError } from '@hal-ai/spec';
import {
  executeTool,
  type ToolOutcome,
  type ToolRegistry,
  type ToolSelection,
  validateArgs,
} from '@hal-ai/tools';
import type { MaybePromise, RoomOperator, ToolContextRequest } from './room-engine-types.js';
import { CANCELLED, type ToolCallBlock } from './room-model-stream.js';
import type { ProposedTool } from './room-proposals.js';
import type { ActionRecord } from './room-store.js';
import type { TurnReadRecorder } from './room-turn-read.js';

/** A tool result block (what the model sees of a call). */
export type ToolResultBlock = Extract<ContentBlock, { type: 'tool-result' }>;

/** Where the calls come from. */
export interface ToolCallOrigin {
  roomId: string;
  turnId: string;
  connectionId: string;
  toolSelection: ToolSelection;
  operator: RoomOperator | null;
  signal: AbortSignal;
  /** What the turn read: read tools add to it, proposals receive it. */
  read: TurnReadRecorder;
}

/** Settings of {@link createToolCalls}. */
export interface ToolCallsSettings<C> {
  registry: ToolRegistry<C>;
  toolContext(request: ToolContextRequest): MaybePromise<C>;
  /** Stores a proposal for a write/high call (see `room-proposals.ts`). */
  propose(input: {
    tool: ProposedTool;
    args: unknown;
    roomId: string;
    connectionId: string;
    turnId: string;
    toolCallId: string;
    read: TurnReadRecorder['read'];
  }): Promise<ActionRecord>;
}

/** What a batch of calls amounted to. */
export interface ToolCallsOutcome {
  /** One per call, in call order. */
  results: ToolResultBlock[];
  /** Proposals made, in call order. */
  proposals: ActionRecord[];
  /** Some calls were refused because the turn reached its limit. */
  capped: boolean;
}

/** Handles a model response's tool calls within a per-turn limit. */
export interface ToolCalls {
  /** `budget.used` counts the turn's calls so far and is increased here; refusals over `budget.limit` are results. */
  run(
    calls: readonly ToolCallBlock[],
    origin: ToolCallOrigin,
    budget: { used: number; limit: number },
  ): Promise<ToolCallsOutcome>;
}

/** An error result for a call that was not executed (or failed). */
export function errorResult(
  call: ToolCallBlock,
  error: { code: string; message: string; issues?: unknown },
): ToolResultBlock {
  return {
    type: 'tool-result',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    output: { error },
    isError: true,
  };
}

/** A refusal as the model sees it: a HalError's code and message; anything else says no more than that it failed. */
function refusalOf(error: unknown, toolName: string): { code: string; message: string } {
  return HalError.isInstance(error)
    ? { code: error.code, message: error.message }
    : { code: 'internal_error', message: `${toolName} could not check this call` };
}

/** Creates the tool-call handling of an engine. */
export function createToolCalls<C>(settings: ToolCallsSettings<C>): ToolCalls {
  const { registry } = settings;

  const handle = async (
    call: ToolCallBlock,
    origin: ToolCallOrigin,
  ): Promise<{ result: ToolResultBlock; action?: ActionRecord }> => {
    const tool = registry.get(call.toolName);
    if (!tool) {
      return {
        result: errorResult(call, {
          code: 'not_found',
          message: `Unknown tool ${JSON.stringify(call.toolName.slice(0, 64))}`,
        }),
      };
    }
    if (!registry.isEnabled(call.toolName, origin.toolSelection)) {
      return {
        result: errorResult(call, {
          code: 'forbidden',
          message: `Tool ${call.toolName} is not enabled for this connection`,
        }),
      };
    }
    if (origin.signal.aborted) return { result: errorResult(call, CANCELLED) };
    const context = () =>
      settings.toolContext({
        roomId: origin.roomId,
        connectionId: origin.connectionId,
        turnId: origin.turnId,
        actionId: null,
        operator: origin.operator,
        purpose: 'turn',
      });
    const runNow = async (toolContext: C) => {
      const outcome: ToolOutcome = await executeTool(
        registry,
        call.toolName,
        call.input,
        toolContext,
        origin.toolSelection,
      );
      origin.read.addToolRun(call.toolName, outcome.ok);
      return {
        result: outcome.ok
          ? {
              type: 'tool-result' as const,
              toolCallId: call.toolCallId,
              toolName: call.toolName,
              output: outcome.output,
            }
          : errorResult(call, outcome.error),
      };
    };
    if (tool.risk === 'read') return runNow(await context());
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
    if (tool.precheck) {
      // Refused arguments never become a proposal (nothing is stored): the model gets the refusal as its result.
      try {
        await tool.precheck(await context(), validated.value);
      } catch (error) {
        return { result: errorResult(call, refusalOf(error, call.toolName)) };
      }
    }
    if (tool.runsAtOnce) {
      // A write tool may run at once for some arguments (web_fetch to an allow-listed host), or refuse them
      // outright (a blocked address): an error result then, never a proposal.
      const toolContext = await context();
      let atOnce: boolean;
      try {
        atOnce = await tool.runsAtOnce(toolContext, validated.value);
      } catch (error) {
        return { result: errorResult(call, refusalOf(error, call.toolName)) };
      }
      if (atOnce) return runNow(toolContext);
    }
    const action = await settings.propose({
      tool,
      args: validated.value,
      roomId: origin.roomId,
      connectionId: origin.connectionId,
      turnId: origin.turnId,
      toolCallId: call.toolCallId,
      read: origin.read.read,
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

  return {
    async run(calls, origin, budget) {
      const results: ToolResultBlock[] = [];
      const proposals: ActionRecord[] = [];
      let capped = false;
      for (const call of calls) {
        if (budget.used >= budget.limit) {
          capped = true;
          results.push(
            errorResult(call, {
              code: 'tool_limit',
              message: `Not executed: limit of ${budget.limit} tool calls per turn reached`,
            }),
          );
          continue;
        }
        budget.used += 1;
        const handled = await handle(call, origin);
        results.push(handled.result);
        if (handled.action) proposals.push(handled.action);
      }
      return { results, proposals, capped };
    },
  };
}
