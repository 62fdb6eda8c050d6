import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRoomTestApp, type RoomTestApp } from '../../src/ai/rooms/room-app.test-support.js';
import { createTally, recordFigures } from './hostile-figures.test-support.js';
import { type RawMcp, type RpcMessage, startRawMcp } from './hostile-mcp.test-support.js';

/*
 * The real `hal mcp` command (its config, the running HAL's database, HAL's stdio transport) fed hostile bytes:
 * garbage and truncated lines, oversized lines, wrong `jsonrpc` versions, unknown methods, batches, ids of odd
 * types, calls before `initialize`, malformed params. Each gets the JSON-RPC error its fault calls for, the
 * server keeps answering the next valid request, and nothing is executed or even proposed.
 */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
/** The transport's line limit (HalStdioServerTransport's default, 4 MiB). */
const MAX_LINE_BYTES = 4 * 1024 * 1024;

let hal: RoomTestApp;
let mcp: RawMcp;

async function count(table: 'ai_actions' | 'incidents' | 'servers' | 'jobs'): Promise<number> {
  const rows = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(hal.deps.db);
  return Number(rows.rows[0]?.n ?? 0);
}

async function stillServing(): Promise<boolean> {
  const answer = await mcp.request('ping');
  return answer.jsonrpc === '2.0' && answer.error === undefined && JSON.stringify(answer.result) === '{}';
}

const line = (message: unknown) => `${JSON.stringify(message)}\n`;
const write = { key: 'hostile.mcp', title: 'from a hostile client', severity: 'minor' };

beforeAll(async () => {
  hal = await createRoomTestApp();
  expect((await hal.call('GET', '/ops/api/ai/rooms')).status).toBe(200);
  mcp = startRawMcp(hal.dataDir);
}, 120_000);

afterAll(async () => {
  if (mcp) expect(await mcp.close()).toBe(0);
  await hal?.close();
});

describe('hostile: MCP framing and fuzzing against hal mcp', () => {
  it('refuses every call before initialize (ping aside): nothing is listed, run or proposed', async (context) => {
    const { tally, check } = createTally();
    const before = await count('ai_actions');
    for (const [method, params] of [
      ['tools/list', undefined],
      ['tools/call', { name: 'hal_incident_open', arguments: write }],
      ['tools/call', { name: 'hal_servers_list', arguments: {} }],
      ['tools/call', { name: 'hal_server_delete', arguments: { id: 'srv_local' } }],
    ] as const) {
      const answer = await mcp.request(method, params);
      check(
        answer.error?.code === INVALID_REQUEST,
        `${method} before initialize: ${JSON.stringify(answer).slice(0, 200)}`,
      );
    }
    check(await stillServing(), 'ping before initialize');
    const initialized = await mcp.initialize('hostile-framing');
    expect(initialized.result?.serverInfo).toMatchObject({ name: 'hal' });
    recordFigures(context, 'MCP framing', { ...tally, badExecutions: (await count('ai_actions')) - before });
    expect(await count('ai_actions')).toBe(before);
    expect(tally.misses).toEqual([]);
  });

  it('answers garbage, truncated, oversized and misshapen messages with their JSON-RPC codes and keeps serving', async (context) => {
    const { tally, check } = createTally();
    const before = { actions: await count('ai_actions'), incidents: await count('incidents') };
    const expectError = async (bytes: string | Buffer, code: number, id: unknown, label: string) => {
      mcp.write(bytes);
      const answer: RpcMessage = await mcp.next();
      check(
        answer.jsonrpc === '2.0' &&
          answer.error?.code === code &&
          answer.id === id &&
          answer.result === undefined,
        `${label}: ${JSON.stringify(answer).slice(0, 200)}`,
      );
      check(await stillServing(), `${label}: the next request`);
    };
    // Not JSON at all.
    await expectError('not json\n', PARSE_ERROR, null, 'garbage');
    await expectError(
      `${line({ jsonrpc: '2.0', id: 'cut', method: 'ping' }).slice(0, 25)}\n`,
      PARSE_ERROR,
      null,
      'truncated',
    );
    await expectError(Buffer.from([0xff, 0xfe, 0x7b, 0x0a]), PARSE_ERROR, null, 'invalid UTF-8');
    await expectError('\u0000\u0001\u0002\n', PARSE_ERROR, null, 'control bytes');
    await expectError(
      `{"jsonrpc":"2.0","id":"big","method":"ping","pad":"${'x'.repeat(MAX_LINE_BYTES)}"}\n`,
      PARSE_ERROR,
      null,
      'oversized line',
    );
    // JSON, but not JSON-RPC 2.0.
    await expectError(line({}), INVALID_REQUEST, null, 'empty object');
    await expectError(
      line({ jsonrpc: '1.0', id: 'v1', method: 'ping' }),
      INVALID_REQUEST,
      'v1',
      'jsonrpc 1.0',
    );
    await expectError(
      line({ jsonrpc: 2, id: 'v2', method: 'ping' }),
      INVALID_REQUEST,
      'v2',
      'jsonrpc as a number',
    );
    await expectError(line({ id: 'none', method: 'ping' }), INVALID_REQUEST, 'none', 'no jsonrpc');
    await expectError(line({ jsonrpc: '2.0', id: 'm', method: 42 }), INVALID_REQUEST, 'm', 'numeric method');
    await expectError(line([{ jsonrpc: '2.0', id: 'b1', method: 'ping' }]), INVALID_REQUEST, null, 'batch');
    await expectError(line([]), INVALID_REQUEST, null, 'empty batch');
    await expectError(line('ping'), INVALID_REQUEST, null, 'a string');
    await expectError(line(null), INVALID_REQUEST, null, 'null');
    // Ids of odd types.
    for (const id of [{}, [], true, null]) {
      await expectError(
        line({ jsonrpc: '2.0', id, method: 'ping' }),
        INVALID_REQUEST,
        null,
        `id ${JSON.stringify(id)}`,
      );
    }
    await expectError(
      line({ jsonrpc: '2.0', id: 1.5, method: 'ping' }),
      INVALID_REQUEST,
      1.5,
      'fractional id',
    );
    // Unknown methods, and known ones with params that do not fit.
    for (const method of [
      'nope',
      'resources/list',
      'prompts/get',
      'sampling/createMessage',
      '__proto__',
      'tools/call/',
    ]) {
      await expectError(
        line({ jsonrpc: '2.0', id: `u-${method}`, method }),
        METHOD_NOT_FOUND,
        `u-${method}`,
        `method ${method}`,
      );
    }
    for (const [label, message] of [
      ['initialize again without params', { method: 'initialize', params: {} }],
      ['tools/list with a numeric cursor', { method: 'tools/list', params: { cursor: 5 } }],
      ['tools/call without a name', { method: 'tools/call', params: { arguments: write } }],
      ['tools/call with a numeric name', { method: 'tools/call', params: { name: 5, arguments: {} } }],
      [
        'tools/call with arguments as a string',
        { method: 'tools/call', params: { name: 'hal_incident_open', arguments: JSON.stringify(write) } },
      ],
      [
        'tools/call with arguments as an array',
        { method: 'tools/call', params: { name: 'hal_incident_open', arguments: [write] } },
      ],
    ] as const) {
      await expectError(line({ jsonrpc: '2.0', id: label, ...message }), INVALID_PARAMS, label, label);
    }
    // Messages that get no answer at all: a notification, a response nobody asked for. The server stays up.
    mcp.write(line({ jsonrpc: '2.0', method: 'notifications/nope' }));
    mcp.write(line({ jsonrpc: '2.0', id: 'stray', result: { approvalRequested: true } }));
    mcp.write(line({ jsonrpc: '2.0', id: 'stray-error', error: { code: 1, message: 'x' } }));
    check(await stillServing(), 'after unanswered messages');
    // Split and joined lines, CRLF: framing is by newline only.
    const ping = line({ jsonrpc: '2.0', id: 'split', method: 'ping' });
    mcp.write(ping.slice(0, 7));
    mcp.write(ping.slice(7).replace('\n', '\r\n'));
    const joined = `${line({ jsonrpc: '2.0', id: 'j1', method: 'ping' })}${line({ jsonrpc: '2.0', id: 'j2', method: 'ping' })}`;
    mcp.write(joined);
    const answers = [await mcp.next(), await mcp.next(), await mcp.next()];
    check(
      JSON.stringify(answers.map((answer) => answer.id)) === '["split","j1","j2"]' &&
        answers.every((answer) => answer.error === undefined),
      `split and joined: ${JSON.stringify(answers)}`,
    );
    const badExecutions =
      (await count('ai_actions')) - before.actions + ((await count('incidents')) - before.incidents);
    recordFigures(context, 'MCP framing', { ...tally, badExecutions });
    expect(badExecutions).toBe(0);
    expect(tally.misses).toEqual([]);
    expect(mcp.running()).toBe(true);
    // Nothing but JSON-RPC 2.0 messages was ever written to stdout.
    expect(mcp.received.every((message) => message.jsonrpc === '2.0')).toBe(true);
  }, 120_000);

  it('turns valid write and high calls into proposals only; invalid ones into nothing', async (context) => {
    const { tally, check } = createTally();
    const before = {
      actions: await count('ai_actions'),
      incidents: await count('incidents'),
      servers: await count('servers'),
    };
    const written = await mcp.request('tools/call', { name: 'hal_incident_open', arguments: write });
    const structured = written.result?.structuredContent as {
      approvalRequested?: boolean;
      actionId?: string;
    };
    expect(structured?.approvalRequested).toBe(true);
    const deleted = await mcp.request('tools/call', {
      name: 'hal_server_delete',
      arguments: { id: 'srv_local' },
    });
    expect((deleted.result?.structuredContent as { approvalRequested?: boolean })?.approvalRequested).toBe(
      true,
    );
    for (const [name, args] of [
      ['hal_incident_open', { ...write, approved: true }],
      ['hal_incident_open', JSON.parse(`{"__proto__":{"approved":true},${JSON.stringify(write).slice(1)}`)],
      ['hal_server_delete', { id: 'srv_local', confirm: 'srv_local' }],
      ['hal_action_status', { id: structured?.actionId, approve: true }],
      ['hal_nope', {}],
    ] as const) {
      const answer = await mcp.request('tools/call', { name, arguments: args });
      const code = (answer.result?.structuredContent as { error?: { code?: string } })?.error?.code;
      check(
        answer.result?.isError === true && (code === 'validation_failed' || code === 'not_found'),
        `${name}: ${code}`,
      );
    }
    // Two proposals, nothing executed: the incident and the server are as they were.
    const badExecutions =
      (await count('incidents')) - before.incidents + (before.servers - (await count('servers')));
    recordFigures(context, 'MCP framing', { ...tally, badExecutions });
    expect(await count('ai_actions')).toBe(before.actions + 2);
    expect(badExecutions).toBe(0);
    const pending = await hal.ai.store.listActionsByStatus('proposed');
    expect(pending.map((action) => action.tool).sort()).toEqual(['hal_incident_open', 'hal_server_delete']);
    expect(tally.misses).toEqual([]);
  });
});
