import type { CallConversation } from '@hal-ai/spec';

/**
 * An MCP server attached to a CLI run (HAL's own MCP server, in practice). It is registered under
 * the name {@link CLI_MCP_SERVER_NAME}, so its tools appear to Claude as `mcp__hal__<tool>`.
 */
export interface CliMcpServer {
  /** Executable that serves MCP over stdio, e.g. `node` or the `hal-mcp` bin. */
  command: string;
  args?: string[];
  /** Environment of the MCP server process (e.g. the database path); nothing else is inherited. */
  env?: Record<string, string>;
  /**
   * Tool names (without prefix) the CLI may call without asking. Empty or absent: every tool of
   * the server (`mcp__hal`).
   */
  allowedTools?: string[];
  /** Called once the run has ended, whatever its outcome (e.g. to revoke a per-run grant that `env` carries). */
  release?(): void | Promise<void>;
}

/**
 * Attaches a server per call: receives the call's conversation (`CallOptions.conversation`: room, turn and
 * connection, set by the room engine), so the server can act in that conversation. `undefined` attaches none.
 */
export type CliMcpResolver = (call: {
  conversation?: CallConversation;
}) => CliMcpServer | undefined | Promise<CliMcpServer | undefined>;

/** The server name under which HAL's MCP server is attached. */
export const CLI_MCP_SERVER_NAME = 'hal';

/** The JSON Claude Code reads from `--mcp-config <file>`. */
export function buildClaudeMcpConfig(mcp: CliMcpServer): { mcpServers: Record<string, unknown> } {
  return {
    mcpServers: {
      [CLI_MCP_SERVER_NAME]: {
        type: 'stdio',
        command: mcp.command,
        args: mcp.args ?? [],
        env: mcp.env ?? {},
      },
    },
  };
}

/**
 * Claude Code arguments that attach the server: only this server (`--strict-mcp-config`), and its
 * tools pre-approved — without `--allowedTools` a `-p` run lands every call in `permission_denials`.
 */
export function buildClaudeMcpArgs(mcp: CliMcpServer, configPath: string): string[] {
  const allowed = mcp.allowedTools?.length
    ? mcp.allowedTools.map((tool) => `mcp__${CLI_MCP_SERVER_NAME}__${tool}`)
    : [`mcp__${CLI_MCP_SERVER_NAME}`];
  return ['--mcp-config', configPath, '--strict-mcp-config', '--allowedTools', allowed.join(',')];
}

/** A TOML value for `codex -c key=value` (JSON strings and arrays are valid TOML here). */
function toml(value: string | string[] | Record<string, string>): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => JSON.stringify(item)).join(',')}]`;
  const entries = Object.entries(value).map(
    ([key, item]) => `${JSON.stringify(key)}=${JSON.stringify(item)}`,
  );
  return `{${entries.join(',')}}`;
}

/** Codex `-c` overrides that attach the server as `mcp_servers.hal`. */
export function buildCodexMcpArgs(mcp: CliMcpServer): string[] {
  const prefix = `mcp_servers.${CLI_MCP_SERVER_NAME}`;
  const args = [
    '-c',
    `${prefix}.command=${toml(mcp.command)}`,
    '-c',
    `${prefix}.args=${toml(mcp.args ?? [])}`,
  ];
  if (mcp.env && Object.keys(mcp.env).length > 0) args.push('-c', `${prefix}.env=${toml(mcp.env)}`);
  if (mcp.allowedTools?.length) args.push('-c', `${prefix}.enabled_tools=${toml(mcp.allowedTools)}`);
  return args;
}
