import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../../../', import.meta.url));
const tsupCli = path.join(root, 'node_modules/tsup/dist/cli-default.js');

/** The built `hal` entries the spawned-process tests run. */
export const HAL_DIST = {
  cli: path.join(root, 'apps/hal/dist/cli.js'),
  mcpBin: path.join(root, 'apps/hal/dist/mcp-bin.js'),
};

function newest(target: string): number {
  if (!fs.existsSync(target)) return 0;
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = 0;
  for (const entry of fs.readdirSync(target, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && !/\.test(-support)?\.ts$/.test(entry.name))
      latest = Math.max(latest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

function tsup(packageDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [tsupCli], { cwd: packageDir, timeout: 300_000 }, (error, _stdout, stderr) =>
      error ? reject(new Error(`tsup in ${packageDir} failed: ${stderr}`)) : resolve(),
    );
  });
}

/**
 * Builds what `node apps/hal/dist/mcp-bin.js` needs when it is missing (the workspace libraries resolve
 * to their `dist/` at run time), and rebuilds `@hal-ai/mcp` and the app when the MCP sources are newer
 * than their bundles.
 */
export async function ensureHalMcpBuilt(): Promise<void> {
  for (const name of ['spec', 'tools', 'vault', 'providers', 'rooms', 'mcp']) {
    const dir = path.join(root, 'packages', name);
    const stale = name === 'mcp' && newest(path.join(dir, 'src')) > newest(path.join(dir, 'dist'));
    if (!fs.existsSync(path.join(dir, 'dist/index.js')) || stale) await tsup(dir);
  }
  const app = path.join(root, 'apps/hal');
  const sources = Math.max(newest(path.join(app, 'src/mcp')), newest(path.join(app, 'src/mcp-bin.ts')));
  if (!fs.existsSync(HAL_DIST.mcpBin) || !fs.existsSync(HAL_DIST.cli) || sources > newest(HAL_DIST.mcpBin)) {
    await tsup(app);
  }
}
