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
 *
 * @example
 * const fake = await createFakeAnthropic();
 * fake.enqueue({ text: 'hello', chunks: 2 }, { error: { status: 429, retryAfter: 0 } });
 * // point ANTHROPIC_BASE_URL / createAnthropic({ baseUrl }) at fake.url
 * await fake.close();
 */
export function createFakeAnthropic(options: FakeServerOptions = {}): Promise<FakeServer> {
  return startFakeServer(options, (context) => handleAnthropic(context));
}

async function handleAnthropic(context: FakeContext): Promise<void> {
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

  const body = (request.body ?? {}) as { model?: string; stream?: boolean };
  const model = body.model ?? 'claude-fake';
  await context.answerGeneration(body.stream === true, (step) => ({
    writeError: (error) => writeError(response, error.status, error.type, error.message, error.retryAfter),
    writeStreamError: (kind) => {
      const type = streamErrorType(kind);
      writeError(response, type === 'overloaded_error' ? 529 : type === 'rate_limit_error' ? 429 : 500, type);
    },
    malformedBody: '{"id": "msg_broken", "content": [',
    body: () => messageBody(step, model),
    stream: () => streamMessage(context, step, model),
  }));
}

function streamErrorType(kind: string): string {
  return STREAM_ERROR_TYPES[kind] ?? kind;
}

function messageBody(step: FakeStep, model: string) {
  const calls = stepToolCalls(step, 'toolu_');
  const usage = stepUsage(step);
  return {
    id: messageId(),
    type: 'message',
    role: 'assistant',
    model,
    content: [
      ...(step.text ? [{ type: 'text', text: step.text }] : []),
      ...calls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.input })),
    ],
    stop_reason: step.stopReason ?? (calls.length > 0 ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    ...(usage ? { usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens } } : {}),
  };
}

async function streamMessage(context: FakeContext, step: FakeStep, model: string): Promise<void> {
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
