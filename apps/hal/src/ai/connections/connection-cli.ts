import type { CliMcpResolver, CliMcpServer, CliSpawn, CliTool } from '@hal-ai/providers/cli';
import type { ToolSelection } from '@hal-ai/tools';
import { type ConnectionRow, rowTools } from './connection-store.js';

/** How local CLIs are found and run. */
export interface ConnectionCliSettings {
  /** `CLAUDE_BIN`, `CODEX_BIN`, `HAL_CLI_DIRS`, `PATH`, `HOME`. Default `process.env`. */
  env?: Record<string, string | undefined>;
  homedir?: string;
  spawn?: CliSpawn;
  /** Per status command. Default 15 000 ms. */
  statusTimeoutMs?: number;
  /**
   * HAL's MCP server, attached to every CLI run (read tools; approval requests for the rest).
   * A function receives the connection's tool selection, so its preset decides which HAL tools
   * the CLI may call (`none` → no server); it may answer a per-call resolver, which gets each
   * call's conversation (room, turn, connection).
   */
  mcp?: CliMcpServer | ((selection: ToolSelection) => CliMcpServer | CliMcpResolver | undefined);
}

/** The settings every CLI call shares (discovery and environment), read at call time. */
export function cliRunSettings(cli: ConnectionCliSettings = {}): {
  env: Record<string, string | undefined>;
  homedir?: string;
  spawn?: CliSpawn;
} {
  return {
    env: cli.env ?? process.env,
    ...(cli.homedir ? { homedir: cli.homedir } : {}),
    ...(cli.spawn ? { spawn: cli.spawn } : {}),
  };
}

/** The CLI a `local-cli` row runs. */
export function rowCliTool(row: ConnectionRow): CliTool {
  return (row.cli_tool ?? 'claude') as CliTool;
}

/** The MCP attachment of a local CLI run, by the connection's tool selection. */
export function cliMcpFor(
  cli: ConnectionCliSettings,
  row: ConnectionRow,
): { mcp?: CliMcpServer | CliMcpResolver } {
  const mcp = cli.mcp;
  if (!mcp) return {};
  if (typeof mcp !== 'function') return { mcp };
  const attached = mcp(rowTools(row) as ToolSelection);
  return attached ? { mcp: attached } : {};
}
