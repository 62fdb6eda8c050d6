import { HalError, type ToolRisk } from '@hal-ai/spec';
import { executeTool, type ToolRegistry, type ToolSelection, toMcpTools, validateArgs } from '@hal-ai/tools';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** Where a log line goes. The stdio server must never log to stdout: hand it a stderr logger. */
export interface McpLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Who is calling: handed to `context()` so the host can build an actor per call. */
export interface McpCallInfo {
  /** The tool being called. */
  tool: string;
  /** `clientInfo.name` from `initialize`, if the client sent one. */
  clientName: string | undefined;
  /** `clientInfo.version` from `initialize`, if the client sent one. */
  clientVersion: string | undefined;
}

/** A write/high call the server refused to run: the host turns it into a proposal an operator decides. */
export interface McpApprovalRequest {
  /** The tool's name. */
  tool: string;
  /** The arguments after validation (defaults applied). */
  args: unknown;
  /** The tool's tier, from the registry (never from the client). */
  risk: Exclude<ToolRisk, 'read'>;
  /** `clientInfo.name` from `initialize`, if any: the note in the room names it. */
  clientName: string | undefined;
}

/** Settings of {@link createHalMcpServer}. */
export interface HalMcpServerSettings<C> {
  /** The tools, each with its tier. */
  registry: ToolRegistry<C>;
  /** Builds the context a read tool runs with (called once per executed call). */
  context: (call: McpCallInfo) => C | Promise<C>;
  /** Records a write/high call as a proposal and answers its action id. Never executes the tool. */
  onApprovalRequest: (request: McpApprovalRequest) => Promise<{ actionId: string }>;
  /** Which tools are listed and callable; all of them when omitted. */
  selection?: ToolSelection;
  /** `serverInfo.name`. */
  name: string;
  /** `serverInfo.version`. */
  version: string;
  /** Optional text the client may show its model (`instructions` in the `initialize` result). */
  instructions?: string;
  /** Logs (never to stdout). Silent by default. */
  logger?: McpLogger;
}

const silentLogger: McpLogger = { info() {}, warn() {}, error() {} };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// `structuredContent` must be a JSON object: anything else is wrapped so the text block and the
// structured copy always say the same thing.
function toolResult(payload: unknown, isError: boolean): CallToolResult {
  const structured = isRecord(payload) ? payload : { result: payload ?? null };
  return {
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
    ...(isError ? { isError: true } : {}),
  };
}

function errorResult(code: string, message: string, extra: Record<string, unknown> = {}): CallToolResult {
  return toolResult({ error: { code, message, ...extra } }, true);
}

/**
 * Creates an MCP server for a tool registry under HAL's approval policy, on the SDK's low-level
 * `Server` (so schemas come from valibot's JSON Schema, not zod). Connect it to a transport:
 * `serveStdio(server)` from `@hal-ai/mcp/stdio`, or `InMemoryTransport` in tests.
 *
 * - `tools/list`: the selected tools with `inputSchema` and `annotations` (`readOnlyHint` for read,
 *   `destructiveHint` for high);
 * - `tools/call`: unknown/disabled tool or invalid arguments → `isError: true` with the issues;
 *   read → executed, result as `structuredContent` plus the same JSON as text; write/high → never
 *   executed: `onApprovalRequest` → `{approvalRequested: true, actionId}`; a failing tool → `isError`;
 * - `ping`; protocol faults (unknown method, malformed params) are JSON-RPC errors, and so is `tools/list` or
 *   `tools/call` before `initialize` (`-32600`).
 *
 * @example
 * const server = createHalMcpServer({
 *   registry, name: 'hal', version: '1.0.0',
 *   context: ({ clientName }) => ({ core, actor: `mcp:${clientName ?? 'client'}` }),
 *   onApprovalRequest: (request) => engine.createExternalProposal({ ...request, source: 'mcp' }),
 * });
 * await serveStdio(server);
 */
export function createHalMcpServer<C>(settings: HalMcpServerSettings<C>): Server {
  const { registry, selection, onApprovalRequest } = settings;
  if (typeof onApprovalRequest !== 'function' || typeof settings.context !== 'function') {
    throw new HalError('validation_failed', 'createHalMcpServer needs context() and onApprovalRequest()');
  }
  const logger = settings.logger ?? silentLogger;
  const server = new Server(
    { name: settings.name, version: settings.version },
    {
      capabilities: { tools: { listChanged: false } },
      ...(settings.instructions === undefined ? {} : { instructions: settings.instructions }),
    },
  );
  const enabled = (name: string) =>
    selection === undefined ? registry.has(name) : registry.isEnabled(name, selection);

  // MCP's lifecycle: nothing but `ping` before `initialize` (the SDK would answer, and record proposals from a
  // client that never said who it is).
  const requireInitialized = () => {
    if (server.getClientVersion() === undefined) {
      throw new McpError(ErrorCode.InvalidRequest, 'Not initialized: send initialize first');
    }
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    requireInitialized();
    return { tools: toMcpTools(selection === undefined ? registry.list() : registry.select(selection)) };
  });

  // Registered with a loose schema on purpose: the SDK's generic parse would answer malformed params
  // with -32603 (internal error); `Server` itself re-checks tools/call params and answers -32602.
  const looseCallToolRequest = z.object({ method: z.literal('tools/call'), params: z.unknown() });
  server.setRequestHandler(looseCallToolRequest, async (raw): Promise<CallToolResult> => {
    requireInitialized();
    const request = CallToolRequestSchema.parse(raw);
    const name = request.params.name;
    // The arguments exactly as the client sent them: zod rebuilds a record by assignment, which turns an own
    // `__proto__` key into the copy's prototype, hidden from validation (it must be refused, not dropped).
    const sent = (raw.params as { arguments?: unknown }).arguments;
    const input = sent ?? {};
    const client = server.getClientVersion();
    const clientName = client?.name;
    const tool = enabled(name) ? registry.get(name) : undefined;
    if (tool === undefined) {
      logger.warn('unknown tool', { tool: name.slice(0, 64), clientName });
      return errorResult('not_found', `Unknown tool ${JSON.stringify(name.slice(0, 64))}`);
    }
    if (tool.risk !== 'read') {
      // Only write/high calls validate here: a read call is validated once, by executeTool below.
      const validated = validateArgs(tool, input);
      if (!validated.ok) {
        return errorResult('validation_failed', `Invalid arguments for "${tool.name}"`, {
          issues: validated.issues,
        });
      }
      try {
        const { actionId } = await onApprovalRequest({
          tool: tool.name,
          args: validated.value,
          risk: tool.risk,
          clientName,
        });
        logger.info('approval requested', { tool: tool.name, actionId, clientName });
        return toolResult({ approvalRequested: true, actionId }, false);
      } catch (error) {
        logger.error('approval request failed', { tool: tool.name, error: String(error) });
        return HalError.isInstance(error)
          ? errorResult(error.code, error.message)
          : errorResult('internal_error', `Could not record an approval request for "${tool.name}"`);
      }
    }
    let context: C;
    try {
      context = await settings.context({ tool: tool.name, clientName, clientVersion: client?.version });
    } catch (error) {
      logger.error('context failed', { tool: tool.name, error: String(error) });
      return errorResult('internal_error', `Tool "${tool.name}" could not start`);
    }
    // The raw input again: executeTool validates it itself, and transforms must run exactly once.
    const outcome = await executeTool(registry, tool.name, input, context, selection);
    if (!outcome.ok) {
      logger.warn('tool failed', { tool: tool.name, code: outcome.error.code });
      if (outcome.error.code === 'validation_failed') {
        return errorResult('validation_failed', `Invalid arguments for "${tool.name}"`, {
          issues: outcome.error.issues ?? [],
        });
      }
      return toolResult({ error: outcome.error }, true);
    }
    return toolResult(outcome.output, false);
  });

  return server;
}
