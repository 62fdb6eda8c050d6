import { Hono } from 'hono';
import type { HalConfig } from '../../platform/config.js';
import type { AppEnv } from '../../platform/http/env.js';
import { HAL_TOOL_NAMES } from '../tools/index.js';
import { type HalMcpLaunch, halMcpLaunch, resolveHalMcpBin } from './mcp-launch.js';

/** Settings of {@link createMcpConfigRoutes} (tests pin the paths). */
export interface McpConfigRouteSettings {
  binPath?: string;
  nodePath?: string;
}

// A value inside a shell line: single quotes survive everything but a single quote.
function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:=,@+-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

const toml = (value: string) => JSON.stringify(value);

/**
 * The ready-to-paste snippets `GET /ops/api/ai/mcp-config` answers, for Claude Code, Codex and Claude
 * Desktop, all starting the same `hal-mcp` on this HAL's data folder.
 */
export function buildMcpConfigSnippets(launch: HalMcpLaunch) {
  const server = { type: 'stdio' as const, command: launch.command, args: launch.args, env: launch.env };
  const mcpJson = { mcpServers: { hal: server } };
  // Every tool may be pre-approved in the client: write/high calls only ever become HAL proposals.
  const envToml = Object.entries(launch.env)
    .map(([key, value]) => `${key} = ${toml(value)}`)
    .join(', ');
  const codexArgs = [
    '-c',
    `mcp_servers.hal.command=${toml(launch.command)}`,
    '-c',
    `mcp_servers.hal.args=[${launch.args.map(toml).join(',')}]`,
    '-c',
    `mcp_servers.hal.env={${envToml}}`,
  ];
  return {
    server,
    claudeCode: {
      file: '.mcp.json',
      mcpJson,
      command: [
        'claude',
        '--mcp-config',
        '.mcp.json',
        '--strict-mcp-config',
        '--allowedTools',
        HAL_TOOL_NAMES.map((name) => `mcp__hal__${name}`).join(','),
      ]
        .map(shellQuote)
        .join(' '),
      note: 'Write and high tools answer {approvalRequested, actionId}: an operator approves them in HAL.',
    },
    codex: {
      args: codexArgs,
      command: ['codex', ...codexArgs].map(shellQuote).join(' '),
      configToml: [
        '[mcp_servers.hal]',
        `command = ${toml(launch.command)}`,
        `args = [${launch.args.map(toml).join(', ')}]`,
        `env = { ${envToml} }`,
        '',
      ].join('\n'),
    },
    claudeDesktop: {
      file: 'claude_desktop_config.json',
      json: { mcpServers: { hal: { command: launch.command, args: launch.args, env: launch.env } } },
    },
  };
}

/**
 * `GET /ops/api/ai/mcp-config` → snippets for external MCP clients (SPEC §6). Mounted under `/ops/api/ai`,
 * so the session middleware guards it. The snippets hold absolute paths and the data folder, never a secret.
 */
export function createMcpConfigRoutes(
  deps: { config: Pick<HalConfig, 'dataDir'> },
  settings: McpConfigRouteSettings = {},
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/mcp-config', (c) => {
    const launch = halMcpLaunch({
      dataDir: deps.config.dataDir,
      // Outside clients get the built bin (what an operator installs), never the sources' loader line.
      binPath: settings.binPath ?? resolveHalMcpBin(),
      ...(settings.nodePath ? { nodePath: settings.nodePath } : {}),
    });
    return c.json(buildMcpConfigSnippets(launch));
  });
  return routes;
}
