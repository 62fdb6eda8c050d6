import { PassThrough } from 'node:stream';
import { runHalMcp } from '../../src/ai/mcp/mcp-command.js';

/** One JSON-RPC message `hal mcp` wrote on its stdout. */
export interface RpcMessage {
  jsonrpc?: unknown;
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** `hal mcp` served in this process over byte streams: what a client writes, line by line, and what it answers. */
export interface RawMcp {
  /** Writes bytes to the server's stdin as they are (a test adds the newline, or leaves it out). */
  write(bytes: string | Buffer): void;
  /** Sends one request and resolves its answer (matched by `id`). */
  request(method: string, params?: unknown): Promise<RpcMessage>;
  /** Resolves the next message that has no `id` of a request this client is waiting for (error answers to garbage). */
  next(): Promise<RpcMessage>;
  /** The `initialize` handshake with the `initialized` notification. */
  initialize(clientName?: string): Promise<RpcMessage>;
  /** Every message received so far, in order. */
  received: RpcMessage[];
  /** Whether the command is still serving (it resolves its exit code once stdin ends). */
  running(): boolean;
  /** Ends stdin and resolves the command's exit code. */
  close(): Promise<number>;
}

let nextId = 1;

/**
 * Runs the real `hal mcp` command (`runHalMcp`: config from the environment, the running HAL's database, the stdio
 * transport) with in-memory stdin/stdout, so a test can send it any bytes: truncated lines, garbage, odd ids.
 */
export function startRawMcp(dataDir: string): RawMcp {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const received: RpcMessage[] = [];
  const unclaimed: RpcMessage[] = [];
  const waiting = new Map<unknown, (message: RpcMessage) => void>();
  const nextWaiters: Array<(message: RpcMessage) => void> = [];
  let buffer = '';
  let done = false;
  const exit = runHalMcp({
    env: { HAL_DATA_DIR: dataDir, HAL_LOG_LEVEL: 'silent' },
    stdin,
    stdout,
    stderr: { write: () => true },
  }).finally(() => {
    done = true;
  });

  stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      // Every stdout line must be one JSON-RPC message: a line that is not JSON fails the test here.
      const message = JSON.parse(line) as RpcMessage;
      received.push(message);
      const claim = waiting.get(message.id);
      if (claim) {
        waiting.delete(message.id);
        claim(message);
        continue;
      }
      const waiter = nextWaiters.shift();
      if (waiter) waiter(message);
      else unclaimed.push(message);
    }
  });

  const raw: RawMcp = {
    received,
    write(bytes) {
      stdin.write(bytes);
    },
    request(method, params) {
      const id = `req-${nextId++}`;
      const answer = new Promise<RpcMessage>((resolve) => waiting.set(id, resolve));
      stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })}\n`,
      );
      return answer;
    },
    next() {
      const ready = unclaimed.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve) => nextWaiters.push(resolve));
    },
    async initialize(clientName = 'hostile-client') {
      const answer = await raw.request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: clientName, version: '0.0.0' },
      });
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      return answer;
    },
    running: () => !done,
    async close() {
      stdin.end();
      return exit;
    },
  };
  return raw;
}
