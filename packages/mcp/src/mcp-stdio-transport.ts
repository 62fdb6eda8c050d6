import process from 'node:process';
import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

/** JSON-RPC 2.0: the line is not JSON. */
export const JSONRPC_PARSE_ERROR = -32700;
/** JSON-RPC 2.0: JSON, but not a JSON-RPC message. */
export const JSONRPC_INVALID_REQUEST = -32600;
/** JSON-RPC 2.0: a known method whose params do not fit it. */
export const JSONRPC_INVALID_PARAMS = -32602;

/**
 * The requests this server answers, with the SDK's own schema of each. The SDK parses a handler's params itself and
 * answers a mismatch as `-32603` (internal error) with its validator's dump; checked here first, it is `-32602`.
 */
const REQUEST_SCHEMAS: Record<string, { safeParse(value: unknown): { success: boolean } }> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
};

/** The edges of the stdio transport; the process's own streams by default. */
export interface StdioOptions {
  /** Newline-delimited JSON-RPC in. Default `process.stdin`. */
  stdin?: Readable;
  /** One JSON-RPC message per line out; nothing else is ever written here. Default `process.stdout`. */
  stdout?: Writable;
  /** A longer line is discarded and answered with `-32700`. Default 4 MiB. */
  maxLineBytes?: number;
}

const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;

function requestIdOf(value: unknown): string | number | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/**
 * The MCP stdio transport (newline-delimited JSON-RPC) that answers what the SDK's
 * `StdioServerTransport` silently drops: a line that is not JSON gets a `-32700` error, JSON that is
 * not a JSON-RPC message gets `-32600` (with its `id` when it has one), a request for a known method
 * (`initialize`, `ping`, `tools/list`, `tools/call`) whose params do not fit gets `-32602`, an over-long line
 * is discarded with `-32700`; the server keeps serving the next line in every case.
 *
 * @example
 * const transport = new HalStdioServerTransport({ stdin: process.stdin, stdout: process.stdout });
 * await server.connect(transport);
 */
export class HalStdioServerTransport implements Transport {
  /** Set by `Server.connect()`. */
  onmessage?: (message: JSONRPCMessage) => void;
  /** Set by `Server.connect()`. */
  onerror?: (error: Error) => void;
  /** Set by `Server.connect()`; called once stdin ends or `close()` runs. */
  onclose?: () => void;

  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #maxLineBytes: number;
  #chunks: Buffer[] = [];
  #pendingBytes = 0;
  #discarding = false;
  #started = false;
  #closed = false;

  constructor(options: StdioOptions = {}) {
    this.#stdin = options.stdin ?? process.stdin;
    this.#stdout = options.stdout ?? process.stdout;
    this.#maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  }

  /** Starts reading stdin (called by `Server.connect()`). */
  async start(): Promise<void> {
    if (this.#started) throw new Error('HalStdioServerTransport already started');
    this.#started = true;
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('end', this.#onEnd);
    this.#stdin.on('error', this.#onStreamError);
  }

  /** Writes one message as one line, honouring backpressure. */
  send(message: JSONRPCMessage): Promise<void> {
    return this.#write(message);
  }

  /** Stops reading and reports the close once. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('end', this.#onEnd);
    this.#stdin.off('error', this.#onStreamError);
    if (this.#stdin.listenerCount('data') === 0) this.#stdin.pause();
    this.#chunks = [];
    this.onclose?.();
  }

  #write(message: unknown): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.#closed && this.#stdout.destroyed) {
        reject(new Error('stdout is closed'));
        return;
      }
      const line = `${JSON.stringify(message)}\n`;
      if (this.#stdout.write(line)) resolve();
      else this.#stdout.once('drain', resolve);
    });
  }

  #answerError(id: string | number | null, code: number, message: string): void {
    this.#write({ jsonrpc: '2.0', id, error: { code, message } }).catch((error: unknown) =>
      this.onerror?.(error instanceof Error ? error : new Error(String(error))),
    );
  }

  readonly #onData = (chunk: Buffer | string) => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    for (;;) {
      const newline = data.indexOf(0x0a);
      if (newline === -1) {
        this.#append(data);
        return;
      }
      this.#append(data.subarray(0, newline));
      data = data.subarray(newline + 1);
      this.#endLine();
    }
  };

  #append(part: Buffer): void {
    if (this.#discarding || part.length === 0) return;
    if (this.#pendingBytes + part.length > this.#maxLineBytes) {
      this.#chunks = [];
      this.#pendingBytes = 0;
      this.#discarding = true;
      return;
    }
    this.#chunks.push(part);
    this.#pendingBytes += part.length;
  }

  #endLine(): void {
    if (this.#discarding) {
      this.#discarding = false;
      this.#answerError(
        null,
        JSONRPC_PARSE_ERROR,
        `Parse error: line longer than ${this.#maxLineBytes} bytes`,
      );
      return;
    }
    const line = Buffer.concat(this.#chunks).toString('utf8').replace(/\r$/, '');
    this.#chunks = [];
    this.#pendingBytes = 0;
    if (line.trim() === '') return;
    this.#handleLine(line);
  }

  #handleLine(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.#answerError(null, JSONRPC_PARSE_ERROR, 'Parse error: the line is not valid JSON');
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.#answerError(
        requestIdOf(value),
        JSONRPC_INVALID_REQUEST,
        'Invalid Request: not a JSON-RPC 2.0 message',
      );
      return;
    }
    const request = parsed.data as { id?: unknown; method?: unknown };
    const schema =
      request.id !== undefined &&
      typeof request.method === 'string' &&
      Object.hasOwn(REQUEST_SCHEMAS, request.method)
        ? REQUEST_SCHEMAS[request.method]
        : undefined;
    if (schema && !schema.safeParse(value).success) {
      this.#answerError(requestIdOf(value), JSONRPC_INVALID_PARAMS, `Invalid params for ${request.method}`);
      return;
    }
    try {
      this.onmessage?.(parsed.data);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  readonly #onEnd = () => {
    // A last line without a trailing newline still counts.
    if (this.#pendingBytes > 0 || this.#discarding) this.#endLine();
    void this.close();
  };

  readonly #onStreamError = (error: Error) => {
    this.onerror?.(error);
  };
}

/** What {@link serveStdio} hands back. */
export interface StdioServing {
  /** The connected transport. */
  transport: HalStdioServerTransport;
  /** Resolves once stdin has ended (the client went away) or the server was closed. */
  closed: Promise<void>;
}

/**
 * Serves an MCP server (from `createHalMcpServer`) over newline-delimited stdio until stdin ends.
 * Every stdout line is a JSON-RPC message; log to stderr only.
 *
 * @example
 * const { closed } = await serveStdio(server);
 * await closed; // the client disconnected
 */
export async function serveStdio(server: Server, options: StdioOptions = {}): Promise<StdioServing> {
  const transport = new HalStdioServerTransport(options);
  const closed = new Promise<void>((resolve) => {
    const previous = server.onclose;
    server.onclose = () => {
      previous?.();
      resolve();
    };
  });
  await server.connect(transport);
  return { transport, closed };
}
