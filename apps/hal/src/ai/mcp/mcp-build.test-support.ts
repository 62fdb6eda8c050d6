// Test support (not exported): the built `hal` entries the spawned-process MCP tests run.
import path from 'node:path';
import { appDir, cliPath, ensureBuilt } from '../../../test/hal-serve.test-support.js';

/** The built `hal` entries the spawned-process tests run. */
export const HAL_DIST = {
  cli: cliPath,
  mcpBin: path.join(appDir, 'dist/mcp-bin.js'),
};

/**
 * Builds what `node apps/hal/dist/mcp-bin.js` runs — HAL's `dist/` and the workspace libraries it imports at run
 * time — when any is missing or older than its sources.
 */
export async function ensureHalMcpBuilt(): Promise<void> {
  ensureBuilt();
}
