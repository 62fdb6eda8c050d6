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

const JSON_TYPE = 'application/json; charset=UTF-8';

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
  if (context.keyRejected()) {
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
    context.writeJson(
      200,
      {
        models: page.map((model) => ({
          name: `models/${model.id}`,
          version: '001',
          displayName: model.displayName ?? model.id,
          inputTokenLimit: model.contextWindow ?? 1_048_576,
          outputTokenLimit: 8192,
          supportedGenerationMethods: ['generateContent', 'countTokens'],
        })),
        ...(start + size < all.length ? { nextPageToken: String(start + size) } : {}),
      },
      JSON_TYPE,
    );
    return;
  }
  const model = decodeURIComponent(match?.[1] ?? 'gemini-fake');
  await context.answerGeneration(match?.[2] === 'streamGenerateContent', (step) => ({
    writeError: (error) => writeError(response, error.status, error.message, error.retryAfter, error.type),
    writeStreamError: (kind) => {
      const error = streamError(kind);
      writeError(response, error.code, error.message, undefined, error.status);
    },
    malformedBody: '{"candidates": [',
    body: () => ({
      candidates: [
        candidate(
          [...(step.text ? [{ text: step.text }] : []), ...functionParts(step)],
          step.stopReason ?? 'STOP',
        ),
      ],
      ...usageMetadata(step),
      modelVersion: model,
      responseId: responseId(),
    }),
    contentType: JSON_TYPE,
    stream: () => streamContent(context, step, model),
  }));
}

function streamError(kind: string): { code: number; message: string; status: string } {
  return STREAM_ERRORS[kind] ?? { code: 500, message: kind, status: 'INTERNAL' };
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
  if (await context.applyMidStreamFault(step)) return;
  if (step.streamError) {
    context.writeSse(JSON.stringify({ error: streamError(step.streamError) }));
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
  response.writeHead(status, { 'content-type': JSON_TYPE, ...retryAfterHeader(retryAfter) });
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

function responseId(): string {
  return Math.random().toString(36).slice(2, 14);
}
