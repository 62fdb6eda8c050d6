import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createHalMcpServer, type McpApprovalRequest } from './index.js';
import { createSampleRegistry, type SampleContext } from './mcp-sample-registry.test-support.js';

interface Harness {
  client: Client;
  effects: SampleContext['effects'];
  approvals: McpApprovalRequest[];
}

const open: Client[] = [];
afterEach(async () => {
  for (const client of open.splice(0)) await client.close();
});

async function connect(options: { selection?: { preset: 'read_only' }; failApproval?: boolean } = {}) {
  const effects = { reads: 0, writes: 0 };
  const approvals: McpApprovalRequest[] = [];
  const server = createHalMcpServer<SampleContext>({
    registry: createSampleRegistry(),
    name: 'sample',
    version: '1.2.3',
    ...(options.selection ? { selection: options.selection } : {}),
    context: ({ clientName }) => ({ effects, actor: `mcp:${clientName}` }),
    onApprovalRequest: async (request) => {
      if (options.failApproval) throw new Error('database is gone');
      approvals.push(request);
      return { actionId: `act_${approvals.length}` };
    },
  });
  const client = new Client({ name: 'test-client', version: '0.0.1' });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  open.push(client);
  return { client, effects, approvals } satisfies Harness;
}

describe('createHalMcpServer', () => {
  it('initializes with its name and a tools capability, and answers ping', async () => {
    const { client } = await connect();
    expect(client.getServerVersion()).toEqual({ name: 'sample', version: '1.2.3' });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    await expect(client.ping()).resolves.toEqual({});
  });

  it('lists every tool with its JSON Schema and tier annotations', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'sample_echo',
      'sample_list',
      'sample_broken',
      'sample_note_add',
      'sample_server_delete',
    ]);
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.sample_echo?.annotations).toEqual({
      title: 'Echo',
      readOnlyHint: true,
      destructiveHint: false,
    });
    expect(byName.sample_note_add?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
    });
    expect(byName.sample_server_delete?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    expect(byName.sample_echo?.inputSchema).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string', minLength: 1, maxLength: 200 }, times: { type: 'number' } },
      required: ['message'],
      additionalProperties: false,
    });
  });

  it('executes a read tool: structuredContent plus the same JSON as text', async () => {
    const { client, effects } = await connect();
    const result = await client.callTool({ name: 'sample_echo', arguments: { message: 'hi', times: 2 } });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({ echo: 'hihi', actor: 'mcp:test-client' });
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(result.structuredContent) }]);
    expect(effects.reads).toBe(1);
  });

  it('wraps a non-object result so structuredContent stays an object', async () => {
    const { client } = await connect();
    const result = await client.callTool({ name: 'sample_list', arguments: {} });
    expect(result.structuredContent).toEqual({ result: ['a', 'b'] });
  });

  it('never executes a write tool: one approval request, {approvalRequested, actionId}', async () => {
    const { client, effects, approvals } = await connect();
    const result = await client.callTool({ name: 'sample_note_add', arguments: { text: 'hello' } });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({ approvalRequested: true, actionId: 'act_1' });
    expect(result.content).toEqual([
      { type: 'text', text: JSON.stringify({ approvalRequested: true, actionId: 'act_1' }) },
    ]);
    expect(effects.writes).toBe(0);
    expect(approvals).toEqual([
      { tool: 'sample_note_add', args: { text: 'hello' }, risk: 'write', clientName: 'test-client' },
    ]);
  });

  it('never executes a high tool either', async () => {
    const { client, effects, approvals } = await connect();
    const result = await client.callTool({ name: 'sample_server_delete', arguments: { id: 'srv_1' } });
    expect(result.structuredContent).toEqual({ approvalRequested: true, actionId: 'act_1' });
    expect(effects.writes).toBe(0);
    expect(approvals.map((request) => request.risk)).toEqual(['high']);
  });

  it('answers invalid arguments with isError and every issue, without an approval request', async () => {
    const { client, approvals, effects } = await connect();
    const result = await client.callTool({ name: 'sample_note_add', arguments: { text: '', extra: 1 } });
    expect(result.isError).toBe(true);
    const error = (result.structuredContent as { error: { code: string; issues: { path: string }[] } }).error;
    expect(error.code).toBe('validation_failed');
    expect(error.issues.map((issue) => issue.path).sort()).toEqual(['extra', 'text']);
    expect(approvals).toHaveLength(0);
    expect(effects.writes).toBe(0);
  });

  it.each([
    ['a read', 'sample_echo', '{"__proto__":{"admin":true},"message":"hi"}'],
    ['a write', 'sample_note_add', '{"__proto__":{"admin":true},"text":"hello"}'],
  ])(
    'refuses %s call whose arguments carry an own __proto__ key (as JSON.parse makes it)',
    async (_label, name, json) => {
      const { client, approvals, effects } = await connect();
      const result = await client.callTool({ name, arguments: JSON.parse(json) });
      expect(result.isError).toBe(true);
      const error = (result.structuredContent as { error: { code: string; issues: { path: string }[] } })
        .error;
      expect(error.code).toBe('validation_failed');
      expect(error.issues.map((issue) => issue.path)).toEqual(['__proto__']);
      expect(approvals).toHaveLength(0);
      expect(effects).toEqual({ reads: 0, writes: 0 });
    },
  );

  it('answers an unknown tool with isError not_found', async () => {
    const { client } = await connect();
    const result = await client.callTool({ name: 'sample_nope', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: 'not_found' } });
  });

  it('answers a failing tool with isError and its HalError code', async () => {
    const { client } = await connect();
    const result = await client.callTool({ name: 'sample_broken', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      error: { code: 'conflict', message: 'The sample is broken on purpose' },
    });
  });

  it('answers a failed approval request with isError, without leaking the cause', async () => {
    const { client, effects } = await connect({ failApproval: true });
    const result = await client.callTool({ name: 'sample_note_add', arguments: { text: 'x' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).not.toContain('database is gone');
    expect(effects.writes).toBe(0);
  });

  it('hides and refuses tools outside the selection', async () => {
    const { client, approvals } = await connect({ selection: { preset: 'read_only' } });
    const { tools } = await client.listTools();
    expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
    const result = await client.callTool({ name: 'sample_server_delete', arguments: { id: 'srv_1' } });
    expect(result.isError).toBe(true);
    expect(approvals).toHaveLength(0);
  });

  it('turns protocol faults into JSON-RPC errors', async () => {
    const { client } = await connect();
    const unknownMethod = client.request({ method: 'resources/list' } as never, {} as never);
    await expect(unknownMethod).rejects.toSatisfy(
      (error: unknown) => error instanceof McpError && error.code === ErrorCode.MethodNotFound,
    );
  });
});
