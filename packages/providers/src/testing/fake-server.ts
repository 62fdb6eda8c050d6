import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A tool call a fake answers with. `input` is sent as JSON arguments, in pieces when streaming. */
export interface FakeToolCall {
  name: string;
  input: unknown;
  /** The call id on the wire (Anthropic/OpenAI); generated when omitted. */
  id?: string;
  /** Streamed instead of `JSON.stringify(input)` (Anthropic/OpenAI), e.g. to send arguments that are not JSON. */
  rawArguments?: string;
}

/** Token counts a fake reports; `false` on a step reports none at all. */
export interface FakeUsage {
  inputTokens?: number;
  outputTokens?: number;
  /** Reasoning tokens, reported where the provider reports them (Gemini, OpenAI). */
  reasoningTokens?: number;
}

/**
 * One scripted answer of a fake provider. Fields combine: `{text: 'partial', cut: true}` streams the text and then
 * drops the connection; `{toolCall, stall: 'mid-stream'}` sends half the arguments and then goes silent.
 */
export interface FakeStep {
  /** Answer text. */
  text?: string;
  /** How many pieces the text (and tool arguments) are split into when streaming. Default 3. */
  chunks?: number;
  /** Wait before sending the response headers. */
  firstByteDelayMs?: number;
  /** Wait between streamed events. Default 0. */
  chunkDelayMs?: number;
  /** A tool call after the text. */
  toolCall?: FakeToolCall;
  /** Several tool calls after the text. */
  toolCalls?: FakeToolCall[];
  /** Reported usage; `false` reports none. Default: small numbers derived from the text. */
  usage?: FakeUsage | false;
  /** Overrides the stop/finish reason as the provider spells it (`end_turn`, `stop`, `STOP`…). */
  stopReason?: string;
  /** An HTTP error answer instead of a response. `retryAfter` becomes the `Retry-After` header. */
  error?: { status: number; type?: string; message?: string; retryAfter?: string | number };
  /** Answer 200, stream the text so far, then the provider's in-stream error event of this kind. */
  streamError?: 'overloaded' | 'rate_limit' | 'api_error' | 'invalid_request' | (string & {});
  /** Never send headers (`before-first-byte`), or stop sending after the first events (`mid-stream`). */
  stall?: 'before-first-byte' | 'mid-stream';
  /** Drop the socket before the final event (`true`), or end the body cleanly but early (`'end'`). */
  cut?: true | 'end';
  /** Send a chunk (or body) that is not valid JSON. */
  malformed?: true;
  /**
   * What the model thinks before answering, sent where the request asked for reasoning the provider shows
   * (Anthropic `thinking`: a signed thinking block, or a redacted one). Default a short fixed thought.
   */
  reasoning?: string | { redacted: true };
}

/** A request a fake received. */
export interface FakeRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  /** The query string parameters. */
  query: Record<string, string>;
  /** Lower-cased header names. */
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, or the raw text when it is not JSON, or `undefined` when empty. */
  body: unknown;
}

/** A model a fake lists. */
export interface FakeModel {
  id: string;
  displayName?: string;
  contextWindow?: number;
}

/** Options shared by every fake. */
export interface FakeServerOptions {
  /** Answers a request when the queue is empty. Default: a short fixed text. */
  respond?: (request: FakeRequest) => FakeStep;
  /** Models the list endpoint reports. */
  models?: FakeModel[];
  /** The largest page of the model list, whatever the client asks (to exercise pagination). Default 2. */
  modelsPageSize?: number;
  /** When set, requests without this key (API-key header or Bearer) are answered with 401. */
  apiKey?: string;
}

/** A running fake provider. */
export interface FakeServer {
  /** `http://127.0.0.1:<port>` — the origin, as the Anthropic and Gemini base URL. */
  readonly url: string;
  /** The base URL an SDK or adapter of this provider takes (`/v1` appended for OpenAI-compatible). */
  readonly baseUrl: string;
  /** Every request received, in order. */
  readonly requests: FakeRequest[];
  /** Scripts the next answers, in order. */
  enqueue(...steps: FakeStep[]): void;
  /** Replaces the listed models. */
  setModels(models: FakeModel[]): void;
  /** Closes the server and drops every open connection (stalled ones included). */
  close(): Promise<void>;
}

/** What a vendor fake does with one request; it writes the whole answer. */
export interface FakeContext {
  request: FakeRequest;
  response: ServerResponse;
  /** The next scripted step (queue first, then the responder). */
  nextStep(): FakeStep;
  models(): FakeModel[];
  modelsPageSize: number;
  apiKey: string | undefined;
  /** Resolves after `ms`, or at once when the connection closed meanwhile. */
  sleep(ms: number): Promise<void>;
  /** Keeps the connection open, silent, until the client or `close()` drops it. */
  hang(): Promise<void>;
  /** True when the fake wants a key and the request carries another one, or none. */
  keyRejected(): boolean;
  /** Writes a whole JSON answer. Default content type `application/json`. */
  writeJson(status: number, body: unknown, contentType?: string): void;
  /** Writes an SSE frame. */
  writeSse(data: string, event?: string): void;
  /** Ends a streamed answer the way the step's fault says; resolves true when it did. */
  applyMidStreamFault(step: FakeStep): Promise<boolean>;
  /**
   * Answers a generation request with the next step: the scripted HTTP error, a stall before the headers and the
   * first-byte delay are the same for every vendor, and so is how a non-streamed answer is refused, broken, cut or
   * stalled halfway; the vendor's encoder writes the bytes.
   */
  answerGeneration(streaming: boolean, createEncoder: (step: FakeStep) => FakeAnswerEncoder): Promise<void>;
}

/** @internal Starts a fake on 127.0.0.1:0 around a vendor handler. */
export async function startFakeServer(
  options: FakeServerOptions,
  handler: (context: FakeContext) => Promise<void>,
  basePath = '',
): Promise<FakeServer> {
  const queue: FakeStep[] = [];
  const requests: FakeRequest[] = [];
  const sockets = new Set<Socket>();
  let models = options.models ?? [];
  const respond = options.respond ?? (() => ({ text: 'Hello from the fake.' }));

  const server: Server = createServer((req, res) => {
    void readRequest(req).then(async (request) => {
      requests.push(request);
      const closed = new Promise<void>((resolve) => res.once('close', resolve));
      const context: FakeContext = {
        request,
        response: res,
        nextStep: () => queue.shift() ?? respond(request),
        models: () => models,
        modelsPageSize: options.modelsPageSize ?? 2,
        apiKey: options.apiKey,
        sleep: (ms) =>
          ms <= 0 ? Promise.resolve() : Promise.race([closed, new Promise<void>((r) => setTimeout(r, ms))]),
        hang: () => closed,
        keyRejected: () => options.apiKey !== undefined && requestKey(request) !== options.apiKey,
        writeJson: (status, body, contentType) => writeJson(res, status, body, contentType),
        writeSse: (data, event) => writeSse(res, data, event),
        applyMidStreamFault: (step) => applyMidStreamFault(context, step),
        answerGeneration: (streaming, createEncoder) => answerGeneration(context, streaming, createEncoder),
      };
      try {
        await handler(context);
      } catch (error) {
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'text/plain' });
        }
        res.end(String(error));
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    baseUrl: url + basePath,
    requests,
    enqueue: (...steps) => {
      queue.push(...steps);
    },
    setModels: (next) => {
      models = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function readRequest(req: IncomingMessage): Promise<FakeRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  let body: unknown;
  if (text.length > 0) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  const parsed = new URL(req.url ?? '/', 'http://fake.invalid');
  return {
    method: req.method ?? 'GET',
    path: parsed.pathname,
    query: Object.fromEntries(parsed.searchParams),
    headers: { ...req.headers },
    body,
  };
}

/** @internal Splits text into `count` roughly equal, non-empty pieces. */
export function splitIntoPieces(text: string, count: number): string[] {
  if (text.length === 0) return [];
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, count)));
  const pieces: string[] = [];
  for (let index = 0; index < text.length; index += size) pieces.push(text.slice(index, index + size));
  return pieces;
}

/** @internal The tool calls of a step, with ids filled in. */
export function stepToolCalls(
  step: FakeStep,
  idPrefix: string,
): Array<Required<Omit<FakeToolCall, 'rawArguments'>> & { arguments: string }> {
  const calls = [...(step.toolCall ? [step.toolCall] : []), ...(step.toolCalls ?? [])];
  return calls.map((call, index) => ({
    name: call.name,
    input: call.input,
    arguments: call.rawArguments ?? JSON.stringify(call.input),
    id:
      call.id ?? `${idPrefix}${String(index + 1).padStart(2, '0')}${Math.random().toString(36).slice(2, 10)}`,
  }));
}

/** @internal Default usage numbers of a step (text length based, deterministic). */
export function stepUsage(
  step: FakeStep,
): { inputTokens: number; outputTokens: number; reasoningTokens?: number } | undefined {
  if (step.usage === false) return undefined;
  return {
    inputTokens: step.usage?.inputTokens ?? 10,
    outputTokens: step.usage?.outputTokens ?? Math.max(1, Math.ceil((step.text ?? '').length / 4)),
    ...(step.usage?.reasoningTokens !== undefined ? { reasoningTokens: step.usage.reasoningTokens } : {}),
  };
}

/** The key a request carries: `x-api-key`, `x-goog-api-key`, `?key=` or a Bearer token. */
function requestKey(request: FakeRequest): string | undefined {
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const authorization = header('authorization');
  if (authorization?.toLowerCase().startsWith('bearer ')) return authorization.slice(7);
  return header('x-api-key') ?? header('x-goog-api-key') ?? request.query.key;
}

function writeSse(response: ServerResponse, data: string, event?: string): void {
  response.write(`${event ? `event: ${event}\n` : ''}data: ${data}\n\n`);
}

function writeJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  contentType = 'application/json',
): void {
  response.writeHead(status, { 'content-type': contentType });
  response.end(JSON.stringify(body));
}

/** @internal The `Retry-After` header a scripted error asks for, if any. */
export function retryAfterHeader(retryAfter: string | number | undefined): Record<string, string> {
  return retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) };
}

/** @internal How one vendor writes the answer to one generation request; the core decides which part. */
export interface FakeAnswerEncoder {
  /** The HTTP error answer a step scripts. */
  writeError(error: NonNullable<FakeStep['error']>): void;
  /** The non-streamed answer to a step that scripts an in-stream error: the vendor's HTTP error of that kind. */
  writeStreamError(kind: string): void;
  /** The truncated JSON a `malformed` step answers with when not streaming. */
  malformedBody: string;
  /** The whole non-streamed answer. */
  body(): unknown;
  /** The content type of the whole answer. Default `application/json`. */
  contentType?: string;
  /** Streams the answer, faults included. */
  stream(): Promise<void>;
}

async function answerGeneration(
  context: FakeContext,
  streaming: boolean,
  createEncoder: (step: FakeStep) => FakeAnswerEncoder,
): Promise<void> {
  const { response } = context;
  const step = context.nextStep();
  const encoder = createEncoder(step);
  if (step.error) {
    encoder.writeError(step.error);
    return;
  }
  if (step.stall === 'before-first-byte') {
    await context.hang();
    return;
  }
  await context.sleep(step.firstByteDelayMs ?? 0);
  if (streaming) {
    await encoder.stream();
    return;
  }
  if (step.streamError) {
    encoder.writeStreamError(step.streamError);
    return;
  }
  if (step.malformed) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(encoder.malformedBody);
    return;
  }
  const body = encoder.body();
  if (step.cut || step.stall === 'mid-stream') {
    const text = JSON.stringify(body);
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(text.length) });
    response.write(text.slice(0, Math.floor(text.length / 2)));
    await applyMidStreamFault(context, { ...step, cut: step.cut === 'end' ? true : step.cut });
    return;
  }
  context.writeJson(200, body, encoder.contentType);
}

async function applyMidStreamFault(context: FakeContext, step: FakeStep): Promise<boolean> {
  if (step.stall === 'mid-stream') {
    await context.hang();
    return true;
  }
  if (step.cut === true) {
    // Let what was written reach the client first, then drop the connection without the final chunk.
    await new Promise<void>((resolve) => context.response.write('', () => resolve()));
    context.response.socket?.destroy();
    return true;
  }
  if (step.cut === 'end') {
    context.response.end();
    return true;
  }
  return false;
}
