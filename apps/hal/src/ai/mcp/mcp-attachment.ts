import type { CliMcpResolver, CliMcpServer } from '@hal-ai/providers/cli';
import type { ToolSelection } from '@hal-ai/tools';
import type { Kysely } from 'kysely';
import type { Clock } from '../../domain/core/clock.js';
import type { HalConfig } from '../../platform/config.js';
import type { Database } from '../../platform/db/schema.js';
import { createHalTools } from '../tools/index.js';
import { createMcpGrants, HAL_MCP_GRANT_ENV } from './mcp-grants.js';
import { halMcpLaunch } from './mcp-launch.js';

/** Overrides of {@link halMcpAttachment} (tests pin the paths). */
export interface HalMcpAttachmentSettings {
  binPath?: string;
  nodePath?: string;
}

function selectionEnv(selection: ToolSelection): string {
  return selection.preset === 'custom' ? `custom:${(selection.enabled ?? []).join(',')}` : selection.preset;
}

/**
 * HAL's MCP server as a local CLI connection's `mcp` option (`@hal-ai/providers/cli`): `hal-mcp` on this
 * HAL's data folder (started from wherever this HAL runs: `resolveHalMcpEntry`), listing only the connection's tool
 * preset, with exactly those tools in `--allowedTools` (Claude) / `enabled_tools` (Codex). Read tools run; the rest
 * become approval requests in the unified room. A connection whose preset enables no tool gets no server
 * (`undefined`). {@link halMcpRunAttachment} is the same server per run, knowing the run's conversation.
 *
 * @example
 * const model = createCliProvider({ ..., mcp: halMcpAttachment(deps, connection.tools) });
 */
export function halMcpAttachment(
  deps: { config: Pick<HalConfig, 'dataDir'> },
  toolSelection: ToolSelection,
  settings: HalMcpAttachmentSettings = {},
): CliMcpServer | undefined {
  const tools = createHalTools()
    .select(toolSelection)
    .map((tool) => tool.name);
  if (tools.length === 0) return undefined;
  const launch = halMcpLaunch({
    dataDir: deps.config.dataDir,
    tools: selectionEnv(toolSelection),
    ...(settings.binPath ? { binPath: settings.binPath } : {}),
    ...(settings.nodePath ? { nodePath: settings.nodePath } : {}),
  });
  return { command: launch.command, args: launch.args, env: launch.env, allowedTools: tools };
}

/**
 * {@link halMcpAttachment} per CLI run: a run that belongs to a room's turn (`CallOptions.conversation`) gets a grant
 * (`mcp-grants.ts`) in its server's environment — `HAL_MCP_GRANT` with `HAL_MCP_ROOM`, `HAL_MCP_CONNECTION`,
 * `HAL_MCP_TURN` — so its proposals land in that room, attributed to the connection and turn, and the model is
 * called again after approval; the grant is deleted when the run ends. A call outside a room gets the plain server.
 *
 * @example
 * createConnectionService(deps, { cli: { mcp: (selection) => halMcpRunAttachment(deps, selection) } });
 */
export function halMcpRunAttachment(
  deps: { config: Pick<HalConfig, 'dataDir'>; db: Kysely<Database>; clock: Clock },
  toolSelection: ToolSelection,
  settings: HalMcpAttachmentSettings = {},
): CliMcpResolver | undefined {
  const server = halMcpAttachment(deps, toolSelection, settings);
  if (!server) return undefined;
  const grants = createMcpGrants(deps.db, deps.clock);
  return async ({ conversation }) => {
    if (!conversation) return server;
    const grant = await grants.issue(conversation);
    return {
      ...server,
      env: {
        ...server.env,
        [HAL_MCP_GRANT_ENV.token]: grant.token,
        [HAL_MCP_GRANT_ENV.room]: conversation.roomId,
        [HAL_MCP_GRANT_ENV.connection]: conversation.connectionId,
        [HAL_MCP_GRANT_ENV.turn]: conversation.turnId,
      },
      release: grant.release,
    };
  };
}
