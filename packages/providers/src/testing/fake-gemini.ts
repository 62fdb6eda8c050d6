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

/** Options of {@link createFakeGemini}. */
export interface FakeGeminiOptions extends FakeServerOptions {
  /**
   * Models that think and sign their parts, as Gemini 3 does: their answers carry a `thoughtSignature` on the first
   * function call of each step (or on the last text part), and a request whose current turn sends a function call
   * back without its signature, or with one the fake never issued, is refused with `400 INVALID_ARGUMENT`.
   * Default `/^gemini-3/`.
   */
  signatureModels?: RegExp;
}

/**
 * A real HTTP server on 127.0.0.1 that speaks the Gemini API: `POST /v1beta/models/{model}:generateContent`,
 * `:streamGenerateContent?alt=sse` (whole `functionCall` parts, `usageMetadata` on the last chunk) and
 * `GET /v1beta/models` (paginated with `pageSize`/`pageToken`, `nextPageToken`, names prefixed `models/`).
 * Gemini 3 models sign their parts and refuse a tool loop that drops a signature, and `thinkingConfig` is checked
 * the way the API checks it (a level only on Gemini 3, never a level and a budget together).
 *
 * @example
 * const fake = await createFakeGemini({ models: [{ id: 'gemini-2.5-flash' }] });
 * const ai = new GoogleGenAI({ apiKey: 'x', httpOptions: { baseUrl: fake.url } });
 */
export function createFakeGemini(options: FakeGeminiOptions = {}): Promise<FakeServer> {
  const signatures = createSignatureBook(options.signatureModels ?? /^gemini-3/);
  return startFakeServer(options, (context) => handleGemini(context, signatures));
}

/** The signatures the fake issued, and which models sign. */
interface SignatureBook {
  signs(model: string): boolean;
  issue(): string;
  issued(signature: string): boolean;
}

function createSignatureBook(models: RegExp): SignatureBook {
  const issued = new Set<string>();
  return {
    signs: (model) => models.test(model),
    issue: () => {
      const signature = randomBytes(48).toString('base64');
      issued.add(signature);
      return signature;
    },
    issued: (signature) => issued.has(signature),
  };
}

interface GeminiRequestPart {
  text?: string;
  thoughtSignature?: string;
  functionCall?: { name?: string };
  functionResponse?: unknown;
}

/**
 * Why the real API would refuse this body, or `undefined`. Signatures are checked on the current turn only (the
 * contents after the last user message that is not only function responses), as Gemini 3 does: each step's first
 * function call must carry the signature it was issued with.
 */
function refusalOf(model: string, body: unknown, signatures: SignatureBook): string | undefined {
  const request = (body ?? {}) as {
    contents?: Array<{ role?: string; parts?: GeminiRequestPart[] }>;
    generationConfig?: { thinkingConfig?: { thinkingLevel?: string; thinkingBudget?: number } };
  };
  const thinking = request.generationConfig?.thinkingConfig;
  if (thinking) {
    if (thinking.thinkingLevel !== undefined && thinking.thinkingBudget !== undefined) {
      return 'You can only set only one of thinking budget and thinking level.';
    }
    if (thinking.thinkingLevel !== undefined) {
      const levels = !/^gemini-3/.test(model) ? [] : /flash/.test(model) ? FLASH_LEVELS : PRO_LEVELS;
      if (!levels.includes(String(thinking.thinkingLevel).toLowerCase())) {
        return levels.length === 0
          ? 'Thinking level is not supported for this model.'
          : `Thinking level ${thinking.thinkingLevel} is not supported for this model.`;
      }
    }
  }
  if (!signatures.signs(model)) return undefined;
  const contents = request.contents ?? [];
  let turnStart = 0;
  contents.forEach((content, index) => {
    const userText = (content.parts ?? []).some((part) => part.functionResponse === undefined);
    if (content.role === 'user' && userText) turnStart = index + 1;
  });
  for (let index = turnStart; index < contents.length; index += 1) {
    const content = contents[index];
    if (content?.role !== 'model') continue;
    const parts = content.parts ?? [];
    const first = parts.findIndex((part) => part.functionCall !== undefined);
    if (first === -1) continue;
    const call = parts[first];
    if (!call?.thoughtSignature) {
      return (
        'Function call is missing a thought_signature in functionCall parts. This is required for tools to work ' +
        'correctly, and missing thought_signature may lead to degraded model performance. Additional data, ' +
        `function call \`default_api:${call?.functionCall?.name}\` , position ${index + 1}. Please refer to ` +
        'https://ai.google.dev/gemini-api/docs/thought-signatures for more details.'
      );
    }
    if (!signatures.issued(call.thoughtSignature)) {
      return 'Unable to submit request because Thought signature is not valid.';
    }
  }
  return undefined;
}

const FLASH_LEVELS = ['minimal', 'low', 'medium', 'high'];
const PRO_LEVELS = ['low', 'high'];

async function handleGemini(context: FakeContext, signatures: SignatureBook): Promise<void> {
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
  const refusal = refusalOf(model, request.body, signatures);
  if (refusal) {
    writeError(response, 400, refusal, undefined, 'INVALID_ARGUMENT');
    return;
  }
  const sign = signatures.signs(model) ? () => ({ thoughtSignature: signatures.issue() }) : () => ({});
  await context.answerGeneration(match?.[2] === 'streamGenerateContent', (step) => ({
    writeError: (error) => writeError(response, error.status, error.message, error.retryAfter, error.type),
    writeStreamError: (kind) => {
      const error = streamError(kind);
      writeError(response, error.code, error.message, undefined, error.status);
    },
    malformedBody: '{"candidates": [',
    body: () => ({
      candidates: [candidate(signedParts(step, sign), step.stopReason ?? 'STOP')],
      ...usageMetadata(step),
      modelVersion: model,
      responseId: responseId(),
    }),
    contentType: JSON_TYPE,
    stream: () => streamContent(context, step, model, sign),
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
  const thoughts = usage.reasoningTokens;
  return {
    usageMetadata: {
      promptTokenCount: usage.inputTokens,
      candidatesTokenCount: usage.outputTokens,
      ...(thoughts !== undefined ? { thoughtsTokenCount: thoughts } : {}),
      totalTokenCount: usage.inputTokens + usage.outputTokens + (thoughts ?? 0),
    },
  };
}

type Sign = () => { thoughtSignature?: string };

/** The function call parts of a step; the first one is signed (parallel calls share the first one's). */
function functionParts(step: FakeStep, sign: Sign) {
  return stepToolCalls(step, 'unused').map((call, index) => ({
    functionCall: { name: call.name, args: call.input },
    ...(index === 0 ? sign() : {}),
  }));
}

/** A whole answer's parts: a signed first call, or else a signed text part. */
function signedParts(step: FakeStep, sign: Sign) {
  const calls = functionParts(step, sign);
  if (calls.length > 0) return [...(step.text ? [{ text: step.text }] : []), ...calls];
  return step.text ? [{ text: step.text, ...sign() }] : [];
}

async function streamContent(context: FakeContext, step: FakeStep, model: string, sign: Sign): Promise<void> {
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
  const calls = functionParts(step, sign);
  // Without calls, a signing model puts the text's signature on an empty last part, as Gemini 3 streams it.
  const textSignature = calls.length === 0 && pieces.length > 0 ? sign() : {};
  const last =
    calls.length > 0 ? calls : textSignature.thoughtSignature ? [{ text: '', ...textSignature }] : [];
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
  await send({ candidates: [candidate(last, step.stopReason ?? 'STOP')], ...usageMetadata(step) });
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
