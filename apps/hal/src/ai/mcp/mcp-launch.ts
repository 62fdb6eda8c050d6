import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** How an MCP client starts HAL's MCP server: absolute paths only, no shell, no secrets. */
export interface HalMcpLaunch {
  /** The Node executable (absolute). */
  command: string;
  /** Node's arguments: the `hal-mcp` entry ({@link resolveHalMcpEntry}), or `[binPath]` when one is given. */
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
  const candidates = [path.join(here, 'mcp-bin.js'), path.resolve(here, '../../../dist/mcp-bin.js')];
  return candidates.find((candidate) => fs.existsSync(candidate)) ?? (candidates[1] as string);
}

/**
 * Node's arguments that start `hal-mcp` from wherever this HAL runs, so attaching it never depends on a build:
 * - from the bundle: `[<dist>/mcp-bin.js]`, beside the running chunk;
 * - from the sources (the test runner, a checkout that was not built): `src/mcp-bin.ts` itself, through two small
 *   module hooks (`mcp-source-register.mjs`: `.js` specifiers to `.ts`, types stripped by esbuild, the
 *   `@hal-ai/source` export condition for the workspace libraries) — the same sources that run this HAL, never a
 *   stale `dist/`;
 * - otherwise the built bin of {@link resolveHalMcpBin}.
 */
export function resolveHalMcpEntry(moduleUrl: string = import.meta.url): string[] {
  const here = path.dirname(fileURLToPath(moduleUrl));
  const bundled = path.join(here, 'mcp-bin.js');
  if (fs.existsSync(bundled)) return [bundled];
  const source = path.resolve(here, '../../mcp-bin.ts');
  const register = path.join(here, 'mcp-source-register.mjs');
  if (fs.existsSync(source) && fs.existsSync(register)) {
    return ['--conditions=@hal-ai/source', '--import', pathToFileURL(register).href, source];
  }
  return [resolveHalMcpBin(moduleUrl)];
}

/** Settings of {@link halMcpLaunch}. */
export interface HalMcpLaunchSettings {
  /** HAL's data folder (made absolute). */
  dataDir: string;
  /** A `hal-mcp` bin to run instead of {@link resolveHalMcpEntry}. */
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
    args: settings.binPath ? [settings.binPath] : resolveHalMcpEntry(),
    env,
  };
}
