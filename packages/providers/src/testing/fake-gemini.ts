import type { ServerResponse } from 'node:http';
import {
  applyMidStreamFault,
  type FakeContext,
  type FakeServer,
  type FakeServerOptions,
  type FakeStep,
  requestKey,
  splitIntoPieces,
  startFakeServer,
  stepToolCalls,
  stepUsage,
  writeSse,
} from './fake-server.js';

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const STREAM_ERRORS: Record<string, { code: number; message: string; status: string }> = {
  overloaded: {
    code: 503,
    message: 'The model is overloaded. Please try again later.',
    status: 'UNAVAILABLE',
  },
  rate_limit: {
    code: 429,
    message: 'Resource has been exhausted (e.g. check quota).',
    status: 'RESOURCE_EXHAUSTED',
  },
  api_error: { code: 500, message: 'An internal error has occurred.', status: 'INTERNAL' },
  invalid_request: {
    code: 400,
    message: 'Request contains an invalid argument.',
    status: 'INVALID_ARGUMENT',
  },
};

/**
 * A real HTTP server on 127.0.0.1 that speaks the Gemini API: `POST /v1beta/models/{model}:generateContent`,
 * `:streamGenerateContent?alt=sse` (whole `functionCall` parts, `usageMetadata` on the last chunk) and
 * `GET /v1beta/models` (paginated with `pageSize`/`pageToken`, `nextPageToken`, names prefixed `models/`).
 *
 * @example
 * const fake = await createFakeGemini({ models: [{ id: 'gemini-2.5-flash' }] });
 * const ai = new GoogleGenAI({ apiKey: 'x', httpOptions: { baseUrl: fake.url } });
 */
export function createFakeGemini(options: FakeServerOptions = {}): Promise<FakeServer> {
  return startFakeServer(options, (context) => handleGemini(context));
}

async function handleGemini(context: FakeContext): Promise<void> {
  const { request, response } = context;
  if (request.method === 'HEAD') {
    response.writeHead(200);
    response.end();
    return;
  }
  const match = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(request.path);
  const isModels = request.method === 'GET' && request.path === '/v1beta/models';
  if (!(match && request.method === 'POST') && !isModels) {
    writeError(response, 404, `Unknown path ${request.path}`);
    return;
  }
  if (context.apiKey !== undefined && requestKey(request) !== context.apiKey) {
    writeError(
      response,
      401,
      'API key not valid. Please pass a valid API key.',
      undefined,
      'UNAUTHENTICATED',
    );
    return;
  }
  if (isModels) {
    const size = Math.min(Number(request.query.pageSize ?? context.modelsPageSize), context.modelsPageSize);
    const start = Number(request.query.pageToken ?? 0);
    const all = context.models();
    const page = all.slice(start, start + size);
    json(response, 200, {
      models: page.map((model) => ({
        name: `models/${model.id}`,
        version: '001',
        displayName: model.displayName ?? model.id,
        inputTokenLimit: model.contextWindow ?? 1_048_576,
        outputTokenLimit: 8192,
        supportedGenerationMethods: ['generateContent', 'countTokens'],
      })),
      ...(start + size < all.length ? { nextPageToken: String(start + size) } : {}),
    });
    return;
  }
  const model = decodeURIComponent(match?.[1] ?? 'gemini-fake');
  const step = context.nextStep();
  if (step.error) {
    writeError(response, step.error.status, step.error.message, step.error.retryAfter, step.error.type);
    return;
  }
  if (step.stall === 'before-first-byte') {
    await context.hang();
    return;
  }
  await context.sleep(step.firstByteDelayMs ?? 0);
  if (match?.[2] === 'streamGenerateContent') {
    await streamContent(context, step, model);
  } else {
    await answerContent(context, step, model);
  }
}

function candidate(parts: unknown[], finishReason?: string) {
  return { content: { parts, role: 'model' }, ...(finishReason ? { finishReason } : {}), index: 0 };
}

function usageMetadata(step: FakeStep) {
  const usage = stepUsage(step);
  if (!usage) return {};
  return {
    usageMetadata: {
      promptTokenCount: usage.inputTokens,
      candidatesTokenCount: usage.outputTokens,
      totalTokenCount: usage.inputTokens + usage.outputTokens,
    },
  };
}

function functionParts(step: FakeStep) {
  return stepToolCalls(step, 'unused').map((call) => ({
    functionCall: { name: call.name, args: call.input },
  }));
}

async function answerContent(context: FakeContext, step: FakeStep, model: string): Promise<void> {
  const { response } = context;
  if (step.streamError) {
    const error = STREAM_ERRORS[step.streamError] ?? {
      code: 500,
      message: step.streamError,
      status: 'INTERNAL',
    };
    writeError(response, error.code, error.message, undefined, error.status);
    return;
  }
  if (step.malformed) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"candidates": [');
    return;
  }
  const parts = [...(step.text ? [{ text: step.text }] : []), ...functionParts(step)];
  const body = {
    candidates: [candidate(parts, step.stopReason ?? 'STOP')],
    ...usageMetadata(step),
    modelVersion: model,
    responseId: responseId(),
  };
  const text = JSON.stringify(body);
  if (step.cut || step.stall === 'mid-stream') {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(text.length) });
    response.write(text.slice(0, Math.floor(text.length / 2)));
    await applyMidStreamFault(context, { ...step, cut: step.cut === 'end' ? true : step.cut });
    return;
  }
  json(response, 200, body);
}

async function streamContent(context: FakeContext, step: FakeStep, model: string): Promise<void> {
  const { response } = context;
  const id = responseId();
  // Gemini frames end in CRLF pairs; SSE parsers must accept both.
  const send = async (body: unknown) => {
    response.write(
      `data: ${JSON.stringify({ ...(body as object), modelVersion: model, responseId: id })}\r\n\r\n`,
    );
    await context.sleep(step.chunkDelayMs ?? 0);
  };
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const pieces = splitIntoPieces(step.text ?? '', step.chunks ?? 3);
  const calls = functionParts(step);
  for (const piece of pieces) {
    await send({ candidates: [candidate([{ text: piece }])] });
    if (step.malformed) break;
  }
  if (step.malformed) {
    response.end('data: {"candidates": [{"content": \r\n\r\n');
    return;
  }
  if (await applyMidStreamFault(context, step)) return;
  if (step.streamError) {
    const error = STREAM_ERRORS[step.streamError] ?? {
      code: 500,
      message: step.streamError,
      status: 'INTERNAL',
    };
    writeSse(response, JSON.stringify({ error }));
    response.end();
    return;
  }
  await send({ candidates: [candidate(calls, step.stopReason ?? 'STOP')], ...usageMetadata(step) });
  response.end();
}

function writeError(
  response: ServerResponse,
  status: number,
  message?: string,
  retryAfter?: string | number,
  statusName?: string,
): void {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=UTF-8' };
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  response.writeHead(status, headers);
  response.end(
    JSON.stringify({
      error: {
        code: status,
        message: message ?? `Error ${status}`,
        status: statusName ?? STATUS_NAMES[status] ?? (status >= 500 ? 'UNAVAILABLE' : 'FAILED_PRECONDITION'),
      },
    }),
  );
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  response.end(JSON.stringify(body));
}

function responseId(): string {
  return Math.random().toString(36).slice(2, 14);
}
