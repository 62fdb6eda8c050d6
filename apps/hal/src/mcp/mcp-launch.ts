import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** How an MCP client starts HAL's MCP server: absolute paths only, no shell, no secrets. */
export interface HalMcpLaunch {
  /** The Node executable (absolute). */
  command: string;
  /** `[<absolute path of dist/mcp-bin.js>]`. */
  args: string[];
  /** `HAL_DATA_DIR` (absolute); plus `HAL_MCP_TOOLS` when a selection applies. */
  env: Record<string, string>;
}

/**
 * The absolute path of the built `hal-mcp` bin. From the bundle it sits next to the running chunk; from the
 * sources (tests, dev) it is `apps/hal/dist/mcp-bin.js`.
 */
export function resolveHalMcpBin(moduleUrl: string = import.meta.url): string {
  const here = path.dirname(fileURLToPath(moduleUrl));
  const candidates = [path.join(here, 'mcp-bin.js'), path.resolve(here, '../../dist/mcp-bin.js')];
  return candidates.find((candidate) => fs.existsSync(candidate)) ?? (candidates[1] as string);
}

/** Settings of {@link halMcpLaunch}. */
export interface HalMcpLaunchSettings {
  /** HAL's data folder (made absolute). */
  dataDir: string;
  /** Default {@link resolveHalMcpBin}. */
  binPath?: string;
  /** Default `process.execPath`. */
  nodePath?: string;
  /** `HAL_MCP_TOOLS` value, if the server should list only some tools. */
  tools?: string;
}

/** The launch line of HAL's MCP server for a data folder. */
export function halMcpLaunch(settings: HalMcpLaunchSettings): HalMcpLaunch {
  const env: Record<string, string> = { HAL_DATA_DIR: path.resolve(settings.dataDir) };
  if (settings.tools !== undefined) env.HAL_MCP_TOOLS = settings.tools;
  return {
    command: settings.nodePath ?? process.execPath,
    args: [settings.binPath ?? resolveHalMcpBin()],
    env,
  };
}
