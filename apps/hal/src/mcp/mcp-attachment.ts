import type { CliMcpServer } from '@hal-ai/providers/cli';
import type { ToolSelection } from '@hal-ai/tools';
import { createHalTools } from '../ai/tools/index.js';
import type { AppDeps } from '../deps.js';
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
 * HAL's data folder, listing only the connection's tool preset, with exactly those tools in
 * `--allowedTools` (Claude) / `enabled_tools` (Codex). Read tools run; the rest become approval requests
 * in the unified room. A connection whose preset enables no tool gets no server (`undefined`).
 *
 * @example
 * const model = createCliProvider({ ..., mcp: halMcpAttachment(deps, connection.tools) });
 */
export function halMcpAttachment(
  deps: Pick<AppDeps, 'config'>,
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
