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

const STREAM_ERRORS: Record<string, { message: string; type: string; code: string }> = {
  overloaded: { message: 'The server is overloaded', type: 'server_error', code: 'overloaded' },
  rate_limit: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' },
  api_error: {
    message: 'The server had an error processing your request',
    type: 'server_error',
    code: 'server_error',
  },
  invalid_request: { message: 'Invalid request', type: 'invalid_request_error', code: 'invalid_request' },
};

/**
 * A real HTTP server on 127.0.0.1 that speaks OpenAI Chat Completions as OpenAI, OpenRouter and compatible services
 * do: `POST …/chat/completions` (JSON or SSE with `data: [DONE]`, streamed `tool_calls` by index, a usage chunk when
 * `stream_options.include_usage` is set) and `GET …/models`, under any path prefix (`fake.baseUrl` ends in `/v1`).
 *
 * @example
 * const fake = await createFakeOpenAI();
 * fake.enqueue({ toolCall: { name: 'search', input: { q: 'hal' } } });
 * const client = new OpenAI({ apiKey: 'x', baseURL: fake.baseUrl, maxRetries: 0 });
 */
export function createFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeServer> {
  const reasoningModels = options.reasoningModels ?? /^(o\d|gpt-5)/;
  return startFakeServer(options, (context) => handleOpenAI(context, reasoningModels), '/v1');
}

/** Options of {@link createFakeOpenAI}. */
export interface FakeOpenAIOptions extends FakeServerOptions {
  /**
   * Models that take `reasoning_effort` (and report `completion_tokens_details.reasoning_tokens`); the others refuse
   * it with 400, as OpenAI's non-reasoning models do. Default `/^(o\d|gpt-5)/`.
   */
  reasoningModels?: RegExp;
}

async function handleOpenAI(context: FakeContext, reasoningModels: RegExp): Promise<void> {
  const { request, response } = context;
  if (request.method === 'HEAD') {
    response.writeHead(200);
    response.end();
    return;
  }
  const isChat = request.method === 'POST' && request.path.endsWith('/chat/completions');
  const isModels = request.method === 'GET' && request.path.endsWith('/models');
  if (!isChat && !isModels) {
    writeError(response, 404, {
      message: `Unknown path ${request.path}`,
      type: 'invalid_request_error',
      code: null,
    });
    return;
  }
  if (context.keyRejected()) {
    writeError(response, 401, {
      message: 'Incorrect API key provided.',
      type: 'invalid_request_error',
      code: 'invalid_api_key',
    });
    return;
  }
  if (isModels) {
    context.writeJson(200, {
      object: 'list',
      data: context.models().map((model) => ({
        id: model.id,
        object: 'model',
        created: 1_700_000_000,
        owned_by: 'fake',
        ...(model.displayName ? { name: model.displayName } : {}),
        ...(model.contextWindow ? { context_length: model.contextWindow } : {}),
      })),
    });
    return;
  }
  const body = (request.body ?? {}) as {
    model?: string;
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    reasoning_effort?: unknown;
  };
  const model = body.model ?? 'gpt-fake';
  const refusal = reasoningRefusal(model, body.reasoning_effort, reasoningModels);
  if (refusal) {
    writeError(response, 400, {
      message: refusal,
      type: 'invalid_request_error',
      code: 'unsupported_parameter',
    });
    return;
  }
  await context.answerGeneration(body.stream === true, (step) => ({
    writeError: ({ status, type, message, retryAfter }) =>
      writeError(
        response,
        status,
        {
          message: message ?? (status === 429 ? 'Rate limit reached for requests' : `Error ${status}`),
          type:
            type ?? (status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error'),
          code: status === 429 ? 'rate_limit_exceeded' : null,
        },
        retryAfter,
      ),
    writeStreamError: (kind) => writeError(response, kind === 'rate_limit' ? 429 : 503, streamError(kind)),
    malformedBody: '{"id": "chatcmpl-broken", "choices": [',
    body: () => completionBody(step, model),
    stream: () => streamCompletion(context, step, model, body.stream_options?.include_usage === true),
  }));
}

function streamError(kind: string): { message: string; type: string; code: string } {
  return STREAM_ERRORS[kind] ?? { message: kind, type: 'server_error', code: '' };
}

function completionBody(step: FakeStep, model: string) {
  const calls = stepToolCalls(step, 'call_');
  const usage = stepUsage(step);
  return {
    id: completionId(),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: step.text ?? null,
          refusal: null,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: step.stopReason ?? (calls.length > 0 ? 'tool_calls' : 'stop'),
      },
    ],
    ...(usage ? { usage: wireUsage(usage) } : {}),
  };
}

async function streamCompletion(context: FakeContext, step: FakeStep, model: string, includeUsage: boolean) {
  const { response } = context;
  const id = completionId();
  const created = Math.floor(Date.now() / 1000);
  const send = async (choices: unknown[], extra: Record<string, unknown> = {}) => {
    context.writeSse(
      JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created,
        model,
        system_fingerprint: null,
        choices,
        ...extra,
      }),
    );
    await context.sleep(step.chunkDelayMs ?? 0);
  };
  const delta = (value: Record<string, unknown>, finishReason: string | null = null) => [
    { index: 0, delta: value, logprobs: null, finish_reason: finishReason },
  ];
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
  });
  const calls = stepToolCalls(step, 'call_');
  const pieceCount = step.chunks ?? 3;
  await send(delta({ role: 'assistant', content: '', refusal: null }));
  for (const piece of splitIntoPieces(step.text ?? '', pieceCount)) {
    await send(delta({ content: piece }));
    if (step.malformed) break;
  }
  if (step.malformed) {
    response.end('data: {"id": "chatcmpl-broken", "choices": [{\n\n');
    return;
  }
  if (calls.length === 0 && (await context.applyMidStreamFault(step))) return;
  for (const [index, call] of calls.entries()) {
    await send(
      delta({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    );
    const pieces = splitIntoPieces(call.arguments, pieceCount);
    for (const [pieceIndex, piece] of pieces.entries()) {
      await send(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
      if (pieceIndex === Math.floor((pieces.length - 1) / 2) && (await context.applyMidStreamFault(step)))
        return;
    }
  }
  if (step.streamError) {
    context.writeSse(JSON.stringify({ error: streamError(step.streamError) }));
    response.end();
    return;
  }
  await send(delta({}, step.stopReason ?? (calls.length > 0 ? 'tool_calls' : 'stop')));
  const usage = stepUsage(step);
  if (includeUsage && usage) await send([], { usage: wireUsage(usage) });
  context.writeSse('[DONE]');
  response.end();
}

function wireUsage(usage: { inputTokens: number; outputTokens: number; reasoningTokens?: number }) {
  return {
    prompt_tokens: usage.inputTokens,
    // Reasoning tokens are part of the completion tokens, and reported apart as well.
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    ...(usage.reasoningTokens !== undefined
      ? { completion_tokens_details: { reasoning_tokens: usage.reasoningTokens } }
      : {}),
  };
}

const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];

/** Why OpenAI would refuse the body's `reasoning_effort`, or `undefined`. */
function reasoningRefusal(model: string, effort: unknown, reasoningModels: RegExp): string | undefined {
  if (effort === undefined) return undefined;
  if (!reasoningModels.test(model)) {
    return "Unsupported parameter: 'reasoning_effort' is not supported with this model.";
  }
  if (!REASONING_EFFORTS.includes(String(effort))) {
    return `Invalid value: '${String(effort)}'. Supported values are: 'minimal', 'low', 'medium', and 'high'.`;
  }
  return undefined;
}

function writeError(
  response: ServerResponse,
  status: number,
  error: { message: string; type: string; code: string | null },
  retryAfter?: string | number,
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...retryAfterHeader(retryAfter) });
  response.end(JSON.stringify({ error: { ...error, param: null } }));
}

function completionId(): string {
  return `chatcmpl-fake${Math.random().toString(36).slice(2, 14)}`;
}
