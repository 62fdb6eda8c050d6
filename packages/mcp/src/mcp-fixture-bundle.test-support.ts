import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const valibot = fs.realpathSync(path.join(packageDir, '../tools/node_modules/valibot'));

/**
 * Bundles a test-support entry (from the TypeScript sources, like every test) into one runnable
 * ESM file in a temp folder, so a real child process can run it on Node 20 without a build step.
 */
export async function bundleFixture(entry: string): Promise<{ file: string; dispose(): void }> {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-mcp-fixture-'));
  await build({
    config: false,
    entry: { server: path.join(packageDir, 'src', entry) },
    outDir,
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    noExternal: [/.*/],
    silent: true,
    dts: false,
    sourcemap: false,
    esbuildOptions(options) {
      options.conditions = ['@hal-ai/source', 'module', 'import'];
      options.alias = { valibot };
    },
  });
  return {
    // tsup picks `.js` or `.mjs` from the nearest package.json's `type`.
    file: path.join(
      outDir,
      fs.readdirSync(outDir).find((name) => /^server\.m?js$/.test(name)) ?? 'server.js',
    ),
    dispose: () => fs.rmSync(outDir, { recursive: true, force: true }),
  };
}
