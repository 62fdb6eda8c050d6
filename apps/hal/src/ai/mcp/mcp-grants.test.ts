import { connectStdioClient } from '@hal-ai/mcp/testing';
import type { CliMcpServer } from '@hal-ai/providers/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRoomTestApp, eventually, type RoomTestApp } from '../rooms/room-app.test-support.js';
import { halMcpRunAttachment } from './mcp-attachment.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON loosely.
type LooseJson = any;

describe("the MCP server attached to a CLI run acts in that run's conversation", () => {
  let hal: RoomTestApp;
  beforeAll(async () => {
    hal = await createRoomTestApp();
  }, 60_000);
  afterAll(async () => {
    await hal?.close();
  });

  const connect = (server: CliMcpServer) =>
    connectStdioClient(
      { command: server.command, args: server.args ?? [], env: { ...server.env, HAL_LOG_LEVEL: 'warn' } },
      { name: 'claude-code', version: '2.1.197' },
    );

  it('a write call becomes a proposal in the direct room with the connection; approval calls that model again with the result', async () => {
    const rooms = (await hal.call('GET', '/ops/api/ai/rooms')).body.rooms as LooseJson[];
    const room = rooms.find((entry) => entry.connectionId === hal.ids.claude);
    const attach = halMcpRunAttachment(hal.deps, { preset: 'all' });
    const server = (await attach?.({
      conversation: { roomId: room.id, turnId: 'turn-of-the-run', connectionId: hal.ids.claude },
    })) as CliMcpServer;
    expect(server.env).toMatchObject({ HAL_MCP_ROOM: room.id, HAL_MCP_CONNECTION: hal.ids.claude });
    expect(JSON.stringify(await hal.deps.db.selectFrom('ai_mcp_grants').selectAll().execute())).not.toContain(
      server.env?.HAL_MCP_GRANT,
    );
    const mcp = await connect(server);
    let actionId: string;
    try {
      const result = await mcp.client.callTool({
        name: 'hal_incident_open',
        arguments: { key: 'disk.full', title: 'Disk full on web-1', severity: 'major' },
      });
      actionId = (result.structuredContent as LooseJson).actionId;
    } finally {
      await mcp.close();
      await server.release?.();
    }
    const action = await hal.ai.store.getAction(actionId);
    expect(action).toMatchObject({
      roomId: room.id,
      connectionId: hal.ids.claude,
      source: 'mcp',
      turnId: 'turn-of-the-run',
      status: 'proposed',
    });
    // The run ended: its grant is gone.
    expect(await hal.deps.db.selectFrom('ai_mcp_grants').selectAll().execute()).toEqual([]);

    hal.claude.enqueue({ text: 'The incident disk.full is open now.' });
    const approved = await hal.call('POST', `/ops/api/ai/actions/${actionId}/approve`, {});
    expect(approved.status).toBe(200);
    expect(approved.body.action.status).toBe('executed');
    const reply = await eventually(async () => {
      const { messages } = (await hal.call('GET', `/ops/api/ai/rooms/${room.id}/messages?after=0`)).body;
      const last = messages.at(-1);
      expect(last).toMatchObject({ role: 'assistant', connectionId: hal.ids.claude, status: 'complete' });
      return last;
    }, 30_000);
    expect(JSON.stringify(reply.content)).toContain('disk.full');
    // The model was called again with the executed result in its prompt.
    expect(JSON.stringify(hal.claude.requests.at(-1)?.body)).toMatch(
      /approved hal_incident_open; it was executed\. Result:/,
    );
  }, 120_000);

  it('a process that claims a connection without a live grant is refused at start', async () => {
    const rooms = (await hal.call('GET', '/ops/api/ai/rooms')).body.rooms as LooseJson[];
    const room = rooms.find((entry) => entry.connectionId === hal.ids.gpt);
    const attach = halMcpRunAttachment(hal.deps, { preset: 'all' });
    const server = (await attach?.({
      conversation: { roomId: room.id, turnId: 't', connectionId: hal.ids.gpt },
    })) as CliMcpServer;
    // Someone else's connection with this token: refused.
    await expect(
      connect({ ...server, env: { ...server.env, HAL_MCP_CONNECTION: hal.ids.claude } }),
    ).rejects.toThrow(/not a live grant/);
    await server.release?.();
    // The released grant no longer opens anything either.
    await expect(connect(server)).rejects.toThrow(/not a live grant/);
  }, 120_000);
});
