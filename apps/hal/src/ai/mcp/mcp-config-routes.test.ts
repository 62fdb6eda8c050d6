import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRoomTestApp, type RoomTestApp } from '../rooms/room-app.test-support.js';
import { HAL_TOOL_NAMES } from '../tools/index.js';
import { halMcpAttachment } from './mcp-attachment.js';
import { parseMcpToolSelection } from './mcp-host.js';
import { resolveHalMcpBin } from './mcp-launch.js';

describe('GET /ops/api/ai/mcp-config', () => {
  let hal: RoomTestApp;
  beforeAll(async () => {
    hal = await createRoomTestApp();
  }, 60_000);
  afterAll(async () => {
    await hal?.close();
  });

  it('answers snippets for Claude Code, Codex and Claude Desktop with absolute paths and HAL_DATA_DIR', async () => {
    const { status, body } = await hal.call('GET', '/ops/api/ai/mcp-config');
    expect(status).toBe(200);
    const bin = resolveHalMcpBin();
    expect(path.isAbsolute(bin)).toBe(true);
    const server = {
      command: process.execPath,
      args: [bin],
      env: { HAL_DATA_DIR: path.resolve(hal.dataDir) },
    };
    expect(body.server).toEqual({ type: 'stdio', ...server });
    expect(body.claudeCode.mcpJson).toEqual({ mcpServers: { hal: { type: 'stdio', ...server } } });
    expect(body.claudeCode.command).toMatch(
      /^claude --mcp-config \.mcp\.json --strict-mcp-config --allowedTools mcp__hal__hal_skill,/,
    );
    expect(body.claudeCode.command).toContain('mcp__hal__hal_settings_apply');
    expect(body.codex.args).toContain(`mcp_servers.hal.command=${JSON.stringify(process.execPath)}`);
    expect(body.codex.configToml).toContain('[mcp_servers.hal]');
    expect(body.codex.configToml).toContain(`HAL_DATA_DIR = ${JSON.stringify(path.resolve(hal.dataDir))}`);
    expect(body.claudeDesktop.json.mcpServers.hal).toEqual(server);
    // No secret ever appears in a snippet.
    expect(JSON.stringify(body)).not.toContain(hal.keys.gpt);
  });

  it('needs a session', async () => {
    const response = await hal.app.request('/ops/api/ai/mcp-config');
    expect(response.status).toBe(401);
  });
});

describe('halMcpAttachment', () => {
  const deps = { config: { dataDir: '/var/lib/hal' } } as Parameters<typeof halMcpAttachment>[0];

  it('maps a read_only preset onto the read tools and tells hal-mcp the same selection', () => {
    const attachment = halMcpAttachment(deps, { preset: 'read_only' }, { binPath: '/opt/hal/mcp-bin.js' });
    expect(attachment).toMatchObject({
      command: process.execPath,
      args: ['/opt/hal/mcp-bin.js'],
      env: { HAL_DATA_DIR: '/var/lib/hal', HAL_MCP_TOOLS: 'read_only' },
    });
    expect(attachment?.allowedTools).toContain('hal_servers_list');
    expect(attachment?.allowedTools).not.toContain('hal_incident_open');
    expect(parseMcpToolSelection(attachment?.env?.HAL_MCP_TOOLS)).toEqual({ preset: 'read_only' });
  });

  it('lists every tool for `all`, the named ones for custom, and attaches nothing for `none`', () => {
    expect(halMcpAttachment(deps, { preset: 'all' })?.allowedTools).toEqual(HAL_TOOL_NAMES);
    const custom = halMcpAttachment(deps, { preset: 'custom', enabled: ['hal_health', 'hal_server_delete'] });
    expect(custom?.allowedTools).toEqual(['hal_health', 'hal_server_delete']);
    expect(parseMcpToolSelection(custom?.env?.HAL_MCP_TOOLS)).toEqual({
      preset: 'custom',
      enabled: ['hal_health', 'hal_server_delete'],
    });
    expect(halMcpAttachment(deps, { preset: 'none' })).toBeUndefined();
  });

  it('refuses an unknown HAL_MCP_TOOLS value', () => {
    expect(() => parseMcpToolSelection('everything')).toThrow(/HAL_MCP_TOOLS/);
  });
});
