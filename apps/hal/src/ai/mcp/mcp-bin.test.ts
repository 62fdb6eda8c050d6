import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectStdioClient, runInspector, type StdioClientConnection } from '@hal-ai/mcp/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRoomTestApp, type RoomTestApp } from '../rooms/room-app.test-support.js';
import { ensureHalMcpBuilt, HAL_DIST } from './mcp-build.test-support.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON loosely.
type LooseJson = any;

function runNode(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const halMcp = (dataDir: string) => ({
  command: process.execPath,
  args: [HAL_DIST.mcpBin],
  env: { HAL_DATA_DIR: dataDir, HAL_LOG_LEVEL: 'warn' },
});

beforeAll(async () => {
  await ensureHalMcpBuilt();
}, 600_000);

describe('hal-mcp refuses a database it cannot serve', () => {
  it('exits 1 with a clear stderr message when the data folder has no database, and creates none', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-mcp-empty-'));
    try {
      const result = await runNode([HAL_DIST.mcpBin], { HAL_DATA_DIR: dataDir });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/no HAL database at .*hal\.db.*hal db migrate/);
      expect(fs.existsSync(path.join(dataDir, 'hal.db'))).toBe(false);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses an unmigrated database, then serves it once `hal db migrate` ran', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-mcp-unmigrated-'));
    try {
      fs.writeFileSync(path.join(dataDir, 'hal.db'), '');
      const refused = await runNode([HAL_DIST.cli, 'mcp'], { HAL_DATA_DIR: dataDir });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('not migrated');
      const migrated = await runNode([HAL_DIST.cli, 'db', 'migrate'], { HAL_DATA_DIR: dataDir });
      expect(migrated.code).toBe(0);
      const connection = await connectStdioClient(halMcp(dataDir));
      try {
        expect(connection.client.getServerVersion()?.name).toBe('hal');
      } finally {
        await connection.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('hal-mcp against a running HAL (same SQLite file)', () => {
  let hal: RoomTestApp;
  let mcp: StdioClientConnection;

  beforeAll(async () => {
    hal = await createRoomTestApp();
    // The data folder is prepared the way an operator would: `hal db migrate` (a no-op here).
    const migrated = await runNode([HAL_DIST.cli, 'db', 'migrate'], { HAL_DATA_DIR: hal.dataDir });
    expect(migrated.code).toBe(0);
    mcp = await connectStdioClient(halMcp(hal.dataDir), { name: 'claude-code', version: '2.1.197' });
  }, 120_000);

  afterAll(async () => {
    await mcp?.close();
    await hal?.close();
  });

  it('initializes as hal with instructions, lists every HAL tool with tier annotations', async () => {
    expect(mcp.client.getServerVersion()).toMatchObject({ name: 'hal' });
    expect(mcp.client.getInstructions()).toContain('approvalRequested');
    const { tools } = await mcp.client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(tools.length).toBeGreaterThanOrEqual(30);
    expect(byName.hal_servers_list?.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
    });
    expect(byName.hal_incident_open?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
    });
    expect(byName.hal_server_delete?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    expect(byName.hal_incident_open?.inputSchema).toMatchObject({
      type: 'object',
      additionalProperties: false,
    });
  });

  it('executes a read tool against the running HAL database', async () => {
    const result = await mcp.client.callTool({ name: 'hal_servers_list', arguments: {} });
    expect(result.isError).toBeUndefined();
    const servers =
      (result.structuredContent as LooseJson).items ?? (result.structuredContent as LooseJson).servers;
    expect(JSON.stringify(result.structuredContent)).toContain('hal-rooms-host');
    expect(Array.isArray(servers)).toBe(true);
  });

  it('turns a write call into a card in the unified room; HTTP approval executes it exactly once', async () => {
    const args = { key: 'mail.queue-stuck', title: 'Mail queue stuck', severity: 'major' };
    const result = await mcp.client.callTool({ name: 'hal_incident_open', arguments: args });
    expect(result.isError).toBeUndefined();
    const { approvalRequested, actionId } = result.structuredContent as {
      approvalRequested: boolean;
      actionId: string;
    };
    expect(approvalRequested).toBe(true);
    expect(result.content).toEqual([
      { type: 'text', text: JSON.stringify({ approvalRequested: true, actionId }) },
    ]);

    // Nothing ran: no incident yet.
    const incidents = async () =>
      Number((await sql<{ n: number }>`select count(*) as n from incidents`.execute(hal.deps.db)).rows[0]?.n);
    expect(await incidents()).toBe(0);

    // The card and the note sit in the unified room, in the shared database.
    const rooms = await hal.call('GET', '/ops/api/ai/rooms');
    const unified = (rooms.body.rooms as LooseJson[]).find((room) => room.kind === 'unified');
    const messages = await hal.call('GET', `/ops/api/ai/rooms/${unified.id}/messages?after=0`);
    const action = (messages.body.actions as LooseJson[]).find((item) => item.id === actionId);
    expect(action).toMatchObject({
      source: 'mcp',
      tool: 'hal_incident_open',
      risk: 'write',
      status: 'proposed',
      args,
    });
    expect(JSON.stringify(messages.body.messages)).toContain('MCP client claude-code');

    // The client follows it with the read tools.
    const pending = await mcp.client.callTool({ name: 'hal_actions_pending', arguments: {} });
    expect(JSON.stringify(pending.structuredContent)).toContain(actionId);

    // An operator approves over HTTP: it runs once, audited as the MCP client.
    const approved = await hal.call('POST', `/ops/api/ai/actions/${actionId}/approve`, {});
    expect(approved.status).toBe(200);
    expect(approved.body.action.status).toBe('executed');
    expect(await incidents()).toBe(1);
    const again = await hal.call('POST', `/ops/api/ai/actions/${actionId}/approve`, {});
    expect(again.status).toBe(409);
    expect(await incidents()).toBe(1);

    const status = await mcp.client.callTool({ name: 'hal_action_status', arguments: { id: actionId } });
    expect(JSON.stringify(status.structuredContent)).toContain('executed');
  });

  it('answers invalid arguments and unknown tools with isError, never a proposal', async () => {
    const before = (await hal.ai.store.listActionsByStatus('proposed')).length;
    const invalid = await mcp.client.callTool({ name: 'hal_incident_open', arguments: { key: 'x' } });
    expect(invalid.isError).toBe(true);
    expect((invalid.structuredContent as LooseJson).error.code).toBe('validation_failed');
    const unknown = await mcp.client.callTool({ name: 'hal_nope', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect((await hal.ai.store.listActionsByStatus('proposed')).length).toBe(before);
  });

  it('answers the MCP Inspector CLI: tools/list and tools/call', async () => {
    const list = (await runInspector({ ...halMcp(hal.dataDir), method: 'tools/list' })) as LooseJson;
    expect(list.tools.map((tool: LooseJson) => tool.name)).toContain('hal_health');
    const health = (await runInspector({
      ...halMcp(hal.dataDir),
      method: 'tools/call',
      toolName: 'hal_health',
    })) as LooseJson;
    expect(health.isError).toBeUndefined();
    expect(health.structuredContent).toMatchObject({ db: 'ok' });
    const invalid = (await runInspector({
      ...halMcp(hal.dataDir),
      method: 'tools/call',
      toolName: 'hal_server_get',
      toolArgs: { nope: '1' },
    })) as LooseJson;
    expect(invalid.isError).toBe(true);
  }, 120_000);
});
