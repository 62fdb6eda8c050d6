import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFakeAnthropic, type FakeServer } from '@hal-ai/providers/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRoomTestApp, type RoomTestApp } from '../rooms/room-app.test-support.js';
import { ensureHalMcpBuilt, HAL_DIST } from './mcp-build.test-support.js';

// The real Claude Code CLI is a dev dependency of @hal-ai/providers.
const claudeBin = fileURLToPath(
  new URL(
    '../../../../../packages/providers/node_modules/@anthropic-ai/claude-code/bin/claude.exe',
    import.meta.url,
  ),
);

function mentions(body: unknown, needle: string): boolean {
  return JSON.stringify(body ?? '').includes(needle);
}

// The real tool loop: Claude Code (offline, against the Anthropic fake) calls HAL's MCP server through
// `--mcp-config … --strict-mcp-config --allowedTools mcp__hal__…`; the write call becomes a proposal card.
describe.skipIf(!fs.existsSync(claudeBin))('Claude Code CLI → hal-mcp tool loop', () => {
  let hal: RoomTestApp;
  let fake: FakeServer;
  let home: string;
  let incidentCallId: string | undefined;

  beforeAll(async () => {
    await ensureHalMcpBuilt();
    hal = await createRoomTestApp();
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-claude-home-'));
    fake = await createFakeAnthropic({
      respond: (request) => {
        const body = request.body as { tools?: unknown; messages?: unknown } | undefined;
        if (!mentions(body?.tools, 'mcp__hal__hal_incident_open')) {
          // The MCP server may still be starting when the first request goes out: wait for it once.
          if (mentions(body?.tools, 'WaitForMcpServers') && !mentions(body?.messages, 'WaitForMcpServers')) {
            return {
              toolCall: {
                id: `toolu_${randomBytes(6).toString('hex')}`,
                name: 'WaitForMcpServers',
                input: {},
              },
            };
          }
          return { text: 'ok' };
        }
        // Our call has been answered. Key on its id: the server's instructions also say "approvalRequested".
        if (incidentCallId && mentions(body?.messages, incidentCallId)) {
          return { text: 'Asked the operator for approval.' };
        }
        incidentCallId = `toolu_${randomBytes(6).toString('hex')}`;
        return {
          toolCall: {
            id: incidentCallId,
            name: 'mcp__hal__hal_incident_open',
            input: { key: 'disk.full', title: 'Disk full on web-1', severity: 'major' },
          },
        };
      },
    });
  }, 600_000);

  afterAll(async () => {
    await fake?.close();
    await hal?.close();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  it('proposes the write through MCP and Claude Code sees {approvalRequested, actionId}', async () => {
    const configFile = path.join(home, 'hal-mcp.json');
    fs.writeFileSync(
      configFile,
      JSON.stringify({
        mcpServers: {
          hal: {
            type: 'stdio',
            command: process.execPath,
            args: [HAL_DIST.mcpBin],
            env: { HAL_DATA_DIR: hal.dataDir, HAL_LOG_LEVEL: 'warn' },
          },
        },
      }),
    );
    const child = spawn(
      claudeBin,
      [
        '-p',
        'Open an incident: disk full on web-1',
        '--output-format',
        'json',
        '--mcp-config',
        configFile,
        '--strict-mcp-config',
        '--allowedTools',
        'mcp__hal__hal_incident_open',
      ],
      {
        cwd: home,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home,
          ANTHROPIC_BASE_URL: fake.url,
          ANTHROPIC_API_KEY: `test-${randomBytes(12).toString('hex')}`,
          CLAUDE_CODE_MAX_RETRIES: '0',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data) => {
      stdout += data;
    });
    child.stderr.on('data', (data) => {
      stderr += data;
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const result = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { is_error: boolean; result: string };
    expect({ code, isError: result.is_error, stderr }).toMatchObject({ code: 0, isError: false });
    expect(result.result).toBe('Asked the operator for approval.');

    const pending = await hal.ai.store.listActionsByStatus('proposed');
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({
      source: 'mcp',
      tool: 'hal_incident_open',
      clientName: expect.any(String),
    });
    // The tool result Claude Code sent back to the model carried the action id.
    const actionId = pending[0]?.id as string;
    expect(fake.requests.some((request) => mentions(request.body, actionId))).toBe(true);
  }, 180_000);
});
