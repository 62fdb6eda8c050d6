import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHalMcpServer } from './index.js';
import { bundleFixture } from './mcp-fixture-bundle.test-support.js';
import { createSampleRegistry } from './mcp-sample-registry.test-support.js';
import { serveStdio } from './stdio.js';

let fixture: Awaited<ReturnType<typeof bundleFixture>>;
beforeAll(async () => {
  fixture = await bundleFixture('mcp-sample-stdio-server.test-support.ts');
});
afterAll(() => fixture?.dispose());

/** A raw line-level view of a spawned server: write lines, await parsed stdout lines. */
function rawServer() {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [fixture.file], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    for (let index = buffer.indexOf('\n'); index !== -1; index = buffer.indexOf('\n')) {
      lines.push(buffer.slice(0, index));
      buffer = buffer.slice(index + 1);
      for (const wake of waiters.splice(0)) wake();
    }
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  let read = 0;
  return {
    child,
    stderr: () => stderr,
    send(line: string) {
      child.stdin.write(`${line}\n`);
    },
    async next(): Promise<Record<string, unknown>> {
      while (lines.length <= read) await new Promise<void>((resolve) => waiters.push(resolve));
      const line = lines[read++] as string;
      return JSON.parse(line) as Record<string, unknown>;
    },
    allLines: () => lines,
  };
}

const initialize = (id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });

describe('serveStdio over a spawned process', () => {
  it('serves a real SDK client: list, read call, write call becomes an approval request', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [fixture.file],
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(5);
      const read = await client.callTool({ name: 'sample_echo', arguments: { message: 'ok' } });
      expect(read.structuredContent).toEqual({ echo: 'ok', actor: 'mcp:stdio-test' });
      const write = await client.callTool({ name: 'sample_note_add', arguments: { text: 'x' } });
      expect(write.structuredContent).toEqual({ approvalRequested: true, actionId: 'act_1' });
    } finally {
      await client.close();
    }
    // Logs went to stderr, and the process ended with stdin.
    await expect.poll(() => stderr, { timeout: 10_000 }).toContain('bye (writes executed: 0)');
    expect(stderr).toContain('approval requested: sample_note_add by stdio-test');
  });

  it('answers a malformed line with -32700 and keeps serving', async () => {
    const server = rawServer();
    try {
      server.send('{"jsonrpc": "2.0", "id": 1, "method": ');
      expect(await server.next()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: expect.stringContaining('Parse error') },
      });
      server.send(initialize(2));
      expect(await server.next()).toMatchObject({ id: 2, result: { serverInfo: { name: 'sample-stdio' } } });
      server.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      server.send('not json at all');
      expect(await server.next()).toMatchObject({ id: null, error: { code: -32700 } });
      server.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }));
      expect(await server.next()).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    } finally {
      server.child.stdin.end();
    }
    await new Promise((resolve) => server.child.once('exit', resolve));
    // Every stdout line was a JSON-RPC message.
    for (const line of server.allLines()) expect(JSON.parse(line)).toHaveProperty('jsonrpc', '2.0');
  });

  it('answers JSON that is not JSON-RPC with -32600, keeping its id', async () => {
    const server = rawServer();
    try {
      server.send(JSON.stringify({ id: 7, hello: 'world' }));
      expect(await server.next()).toMatchObject({ id: 7, error: { code: -32600 } });
      server.send('[1, 2]');
      expect(await server.next()).toMatchObject({ id: null, error: { code: -32600 } });
    } finally {
      server.child.stdin.end();
    }
  });

  it('answers an unknown method with -32601 and bad tools/call params with -32602', async () => {
    const server = rawServer();
    try {
      server.send(initialize(1));
      await server.next();
      server.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      server.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'resources/list' }));
      expect(await server.next()).toMatchObject({ id: 2, error: { code: -32601 } });
      server.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 42 } }));
      expect(await server.next()).toMatchObject({ id: 3, error: { code: -32602 } });
      server.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping' }));
      expect(await server.next()).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
    } finally {
      server.child.stdin.end();
    }
  });
});

describe('serveStdio before and around initialize', () => {
  it('refuses tools/list and tools/call before initialize with -32600 (ping still answers), then serves', async () => {
    const server = rawServer();
    try {
      server.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
      expect(await server.next()).toMatchObject({ id: 1, error: { code: -32600 } });
      server.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'sample_note_add', arguments: { text: 'before initialize' } },
        }),
      );
      expect(await server.next()).toMatchObject({ id: 2, error: { code: -32600 } });
      server.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }));
      expect(await server.next()).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
      server.send(initialize(4));
      expect(await server.next()).toMatchObject({ id: 4, result: { serverInfo: { name: 'sample-stdio' } } });
      server.send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }));
      expect(await server.next()).toMatchObject({ id: 5, result: { tools: expect.any(Array) } });
    } finally {
      server.child.stdin.end();
    }
    await new Promise((resolve) => server.child.once('exit', resolve));
    // The refused write call never reached the approval request.
    expect(server.stderr()).not.toContain('approval requested');
  });

  it.each([
    ['initialize without its params', { method: 'initialize', params: {} }],
    [
      'initialize with a numeric protocol version',
      {
        method: 'initialize',
        params: { protocolVersion: 1, capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      },
    ],
    [
      'tools/call with arguments that are not an object',
      { method: 'tools/call', params: { name: 'sample_echo', arguments: 'x' } },
    ],
    ['tools/list with a numeric cursor', { method: 'tools/list', params: { cursor: 5 } }],
  ])('answers %s with -32602, never a validator dump as -32603', async (_label, request) => {
    const server = rawServer();
    try {
      server.send(JSON.stringify({ jsonrpc: '2.0', id: 'x', ...request }));
      const answer = await server.next();
      expect(answer).toEqual({
        jsonrpc: '2.0',
        id: 'x',
        error: { code: -32602, message: expect.stringMatching(/^Invalid params/) },
      });
      server.send(JSON.stringify({ jsonrpc: '2.0', id: 'p', method: 'ping' }));
      expect(await server.next()).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
    } finally {
      server.child.stdin.end();
    }
  });
});

describe('HalStdioServerTransport in process', () => {
  it('discards an over-long line with -32700, handles split chunks and CRLF', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const server = createHalMcpServer({
      registry: createSampleRegistry(),
      name: 'in-process',
      version: '0',
      context: () => ({ effects: { reads: 0, writes: 0 }, actor: 'x' }),
      onApprovalRequest: async () => ({ actionId: 'a' }),
    });
    const { closed } = await serveStdio(server, { stdin, stdout, maxLineBytes: 64 });
    const out: string[] = [];
    stdout.setEncoding('utf8');
    stdout.on('data', (chunk: string) => out.push(...chunk.split('\n').filter(Boolean)));
    stdin.write(`${'x'.repeat(50)}`);
    stdin.write(`${'y'.repeat(50)}\n`);
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 'p1', method: 'ping' });
    stdin.write(ping.slice(0, 10));
    stdin.write(`${ping.slice(10)}\r\n`);
    await expect.poll(() => out.length).toBe(2);
    expect(JSON.parse(out[0] as string)).toMatchObject({ id: null, error: { code: -32700 } });
    expect(JSON.parse(out[1] as string)).toEqual({ jsonrpc: '2.0', id: 'p1', result: {} });
    stdin.end();
    await closed;
  });
});
