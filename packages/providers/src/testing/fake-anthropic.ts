import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import {
  type FakeContext,
  type FakeServer,
  type FakeServerOptions,
  type FakeStep,
  retryAfterHeader,
  splitIntoPieces,
  startFakeServer,
  stepToolCalls,
  stepUsage,
} from './fake-server.js';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

const STREAM_ERROR_TYPES: Record<string, string> = {
  overloaded: 'overloaded_error',
  rate_limit: 'rate_limit_error',
  api_error: 'api_error',
  invalid_request: 'invalid_request_error',
};

/**
 * A real HTTP server on 127.0.0.1 that speaks the Anthropic Messages API: `POST /v1/messages` (JSON or SSE, with
 * `?beta=true` and any extra fields the Claude Code CLI sends), `POST /v1/messages/count_tokens`, `GET /v1/models`
 * (paginated with `limit`/`after_id`, `has_more`, `last_id`) and `HEAD /`. Answers are scripted with `enqueue`.
 * With `thinking` enabled it answers a signed thinking block first and refuses what the API refuses: a budget
 * under 1024 or not under `max_tokens`, a temperature other than 1, a forced tool, a thinking block whose
 * signature it did not issue for that text, and a tool-loop continuation whose assistant turn does not start
 * with its thinking block.
 *
 * @example
 * const fake = await createFakeAnthropic();
 * fake.enqueue({ text: 'hello', chunks: 2 }, { error: { status: 429, retryAfter: 0 } });
 * // point ANTHROPIC_BASE_URL / createAnthropic({ baseUrl }) at fake.url
 * await fake.close();
 */
export function createFakeAnthropic(options: FakeServerOptions = {}): Promise<FakeServer> {
  const thoughts = createThoughtBook();
  return startFakeServer(options, (context) => handleAnthropic(context, thoughts));
}

/** The thinking blocks the fake issued: signature → thinking text, and redacted data. */
interface ThoughtBook {
  sign(thinking: string): string;
  redact(): string;
  valid(block: { type?: string; thinking?: string; signature?: string; data?: string }): boolean;
}

function createThoughtBook(): ThoughtBook {
  const signed = new Map<string, string>();
  const redacted = new Set<string>();
  return {
    sign(thinking) {
      const signature = randomBytes(64).toString('base64');
      signed.set(signature, thinking);
      return signature;
    },
    redact() {
      const data = randomBytes(48).toString('base64');
      redacted.add(data);
      return data;
    },
    valid(block) {
      if (block.type === 'redacted_thinking') return redacted.has(String(block.data));
      return signed.get(String(block.signature)) === block.thinking;
    },
  };
}

interface RequestBlock {
  type?: string;
  thinking?: string;
  signature?: string;
  data?: string;
}

interface MessagesRequest {
  model?: string;
  stream?: boolean;
  max_tokens?: number;
  temperature?: number;
  tool_choice?: { type?: string };
  thinking?: { type?: string; budget_tokens?: number };
  messages?: Array<{ role?: string; content?: string | RequestBlock[] }>;
}

const DOCS =
  'Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

/** Why the real API would refuse this body (an `invalid_request_error` message), or `undefined`. */
function refusalOf(body: MessagesRequest, thoughts: ThoughtBook): string | undefined {
  const messages = body.messages ?? [];
  for (const [index, message] of messages.entries()) {
    if (message.role !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const [blockIndex, block] of message.content.entries()) {
      if ((block.type === 'thinking' || block.type === 'redacted_thinking') && !thoughts.valid(block)) {
        return `messages.${index}.content.${blockIndex}: Invalid \`signature\` in \`thinking\` block`;
      }
    }
  }
  if (body.thinking?.type !== 'enabled') return undefined;
  const budget = Number(body.thinking.budget_tokens);
  if (!Number.isInteger(budget) || budget < 1024) {
    return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
  }
  if (!(Number(body.max_tokens) > budget)) {
    return `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. ${DOCS}`;
  }
  if (body.temperature !== undefined && body.temperature !== 1) {
    return '`temperature` may only be set to 1 when thinking is enabled or in interleaved thinking mode.';
  }
  if (body.tool_choice?.type === 'any' || body.tool_choice?.type === 'tool') {
    return 'Thinking may not be enabled when tool_choice forces tool use.';
  }
  // A continuation of a tool loop: the last user turn answers tool calls of the assistant turn before it.
  const last = messages.at(-1);
  const answersTools =
    last?.role === 'user' &&
    Array.isArray(last.content) &&
    last.content.some((block) => block.type === 'tool_result');
  const assistantIndex = messages.length - 2;
  const assistant = messages[assistantIndex];
  if (answersTools && assistant?.role === 'assistant' && Array.isArray(assistant.content)) {
    const first = assistant.content[0]?.type;
    if (first !== 'thinking' && first !== 'redacted_thinking') {
      return (
        `messages.${assistantIndex}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found ` +
        `\`${first}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking ` +
        'block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include ' +
        `thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. ${DOCS}`
      );
    }
  }
  return undefined;
}

/** The thinking block a step answers with, signed (or redacted) by the fake. */
function thinkingBlock(step: FakeStep, thoughts: ThoughtBook) {
  if (typeof step.reasoning === 'object') return { type: 'redacted_thinking', data: thoughts.redact() };
  const thinking = step.reasoning ?? 'The operator asks something; I will answer it briefly.';
  return { type: 'thinking', thinking, signature: thoughts.sign(thinking) };
}

async function handleAnthropic(context: FakeContext, thoughts: ThoughtBook): Promise<void> {
  const { request, response } = context;
  if (request.method === 'HEAD' || (request.method === 'GET' && request.path === '/')) {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end();
    return;
  }
  const isMessages = request.method === 'POST' && request.path === '/v1/messages';
  const isCount = request.method === 'POST' && request.path === '/v1/messages/count_tokens';
  const isModels = request.method === 'GET' && request.path === '/v1/models';
  if (!isMessages && !isCount && !isModels) {
    writeError(response, 404, undefined, `Not found: ${request.method} ${request.path}`);
    return;
  }
  if (context.keyRejected()) {
    writeError(response, 401, 'authentication_error', 'invalid x-api-key');
    return;
  }
  if (isCount) {
    context.writeJson(200, { input_tokens: 10 });
    return;
  }
  if (isModels) {
    const limit = Math.min(Number(request.query.limit ?? context.modelsPageSize), context.modelsPageSize);
    const all = context.models();
    const start = request.query.after_id
      ? all.findIndex((model) => model.id === request.query.after_id) + 1
      : 0;
    const page = all.slice(start, start + limit);
    context.writeJson(200, {
      data: page.map((model) => ({
        type: 'model',
        id: model.id,
        display_name: model.displayName ?? model.id,
        created_at: '2025-01-01T00:00:00Z',
      })),
      has_more: start + limit < all.length,
      first_id: page[0]?.id ?? null,
      last_id: page.at(-1)?.id ?? null,
    });
    return;
  }

  const body = (request.body ?? {}) as MessagesRequest;
  const model = body.model ?? 'claude-fake';
  const refusal = refusalOf(body, thoughts);
  if (refusal) {
    writeError(response, 400, 'invalid_request_error', refusal);
    return;
  }
  const thinks = body.thinking?.type === 'enabled';
  await context.answerGeneration(body.stream === true, (step) => ({
    writeError: (error) => writeError(response, error.status, error.type, error.message, error.retryAfter),
    writeStreamError: (kind) => {
      const type = streamErrorType(kind);
      writeError(response, type === 'overloaded_error' ? 529 : type === 'rate_limit_error' ? 429 : 500, type);
    },
    malformedBody: '{"id": "msg_broken", "content": [',
    body: () => messageBody(step, model, thinks ? thinkingBlock(step, thoughts) : undefined),
    stream: () => streamMessage(context, step, model, thinks ? thinkingBlock(step, thoughts) : undefined),
  }));
}

function streamErrorType(kind: string): string {
  return STREAM_ERROR_TYPES[kind] ?? kind;
}

type ThinkingBlock = ReturnType<typeof thinkingBlock>;

function messageBody(step: FakeStep, model: string, thinking: ThinkingBlock | undefined) {
  const calls = stepToolCalls(step, 'toolu_');
  const usage = stepUsage(step);
  return {
    id: messageId(),
    type: 'message',
    role: 'assistant',
    model,
    content: [
      ...(thinking ? [thinking] : []),
      ...(step.text ? [{ type: 'text', text: step.text }] : []),
      ...calls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.input })),
    ],
    stop_reason: step.stopReason ?? (calls.length > 0 ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    ...(usage ? { usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens } } : {}),
  };
}

async function streamMessage(
  context: FakeContext,
  step: FakeStep,
  model: string,
  thinking: ThinkingBlock | undefined,
): Promise<void> {
  const { response } = context;
  const pause = () => context.sleep(step.chunkDelayMs ?? 0);
  const send = async (event: string, data: unknown) => {
    context.writeSse(JSON.stringify(data), event);
    await pause();
  };
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'request-id': `req_fake${Date.now()}`,
  });
  const usage = stepUsage(step);
  const calls = stepToolCalls(step, 'toolu_');
  const pieceCount = step.chunks ?? 3;
  await send('message_start', {
    type: 'message_start',
    message: {
      id: messageId(),
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      ...(usage ? { usage: { input_tokens: usage.inputTokens, output_tokens: 1 } } : {}),
    },
  });
  await send('ping', { type: 'ping' });
  let index = 0;
  if (thinking?.type === 'redacted_thinking') {
    await send('content_block_start', { type: 'content_block_start', index, content_block: thinking });
    await send('content_block_stop', { type: 'content_block_stop', index });
    index += 1;
  } else if (thinking) {
    await send('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    });
    for (const piece of splitIntoPieces(thinking.thinking ?? '', pieceCount)) {
      await send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'thinking_delta', thinking: piece },
      });
    }
    await send('content_block_delta', {
      type: 'content_block_delta',
      index,
      delta: { type: 'signature_delta', signature: thinking.signature },
    });
    await send('content_block_stop', { type: 'content_block_stop', index });
    index += 1;
  }
  if (step.text !== undefined && step.text.length > 0) {
    await send('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'text', text: '' },
    });
    for (const piece of splitIntoPieces(step.text, pieceCount)) {
      await send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: piece },
      });
      if (step.malformed) {
        response.end(
          'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delta": {\n\n',
        );
        return;
      }
    }
    if (calls.length === 0 && (await context.applyMidStreamFault(step))) return;
    await send('content_block_stop', { type: 'content_block_stop', index });
    index += 1;
  } else if (step.malformed) {
    response.end('event: content_block_start\ndata: {not json\n\n');
    return;
  }
  for (const call of calls) {
    await send('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
    });
    const pieces = ['', ...splitIntoPieces(call.arguments, pieceCount)];
    for (const [pieceIndex, piece] of pieces.entries()) {
      await send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: piece },
      });
      if (pieceIndex === Math.ceil(pieces.length / 2) && (step.cut || step.stall)) {
        await context.applyMidStreamFault(step);
        return;
      }
    }
    await send('content_block_stop', { type: 'content_block_stop', index });
    index += 1;
  }
  if (await context.applyMidStreamFault(step)) return;
  if (step.streamError) {
    const type = streamErrorType(step.streamError);
    context.writeSse(
      JSON.stringify({ type: 'error', error: { type, message: errorMessage(type) } }),
      'error',
    );
    response.end();
    return;
  }
  await send('message_delta', {
    type: 'message_delta',
    delta: {
      stop_reason: step.stopReason ?? (calls.length > 0 ? 'tool_use' : 'end_turn'),
      stop_sequence: null,
    },
    ...(usage ? { usage: { output_tokens: usage.outputTokens } } : {}),
  });
  await send('message_stop', { type: 'message_stop' });
  response.end();
}

function writeError(
  response: ServerResponse,
  status: number,
  type?: string,
  message?: string,
  retryAfter?: string | number,
): void {
  const errorType = type ?? ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'request-id': `req_fake${Date.now()}`,
    ...retryAfterHeader(retryAfter),
  };
  if (errorType === 'overloaded_error') headers['x-should-retry'] = 'true';
  response.writeHead(status, headers);
  response.end(
    JSON.stringify({
      type: 'error',
      error: { type: errorType, message: message ?? errorMessage(errorType) },
      request_id: headers['request-id'],
    }),
  );
}

function errorMessage(type: string): string {
  switch (type) {
    case 'authentication_error':
      return 'invalid x-api-key';
    case 'rate_limit_error':
      return 'Number of request tokens has exceeded your per-minute rate limit';
    case 'overloaded_error':
      return 'Overloaded';
    case 'not_found_error':
      return 'Not found';
    default:
      return 'Internal server error';
  }
}

function messageId(): string {
  return `msg_fake${Math.random().toString(36).slice(2, 14)}`;
}
