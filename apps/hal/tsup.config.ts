import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsup';

const dist = fileURLToPath(new URL('./dist/', import.meta.url));

/**
 * Everything the built HAL serves or reads lands inside `dist/`, so the package runs with no source tree beside it
 * (`pnpm package:hal`): the skill document, the console's stylesheet and other page assets (favicon), and the
 * AI panel's browser bundle. Each is looked up relative to the running bundle (`dist/assets/…`).
 */
async function copyServedAssets(): Promise<void> {
  await fs.copyFile(new URL('../../skill/hal-skill.md', import.meta.url), path.join(dist, 'hal-skill.md'));
  // The whole page-assets folder, so an asset added there (the favicon) ships without touching this file.
  await fs.cp(
    fileURLToPath(new URL('./src/domain/pages/assets/', import.meta.url)),
    path.join(dist, 'assets'),
    {
      recursive: true,
    },
  );
  const require = createRequire(import.meta.url);
  const panelBundle = path.join(
    path.dirname(require.resolve('@hal-ai/ui-panel/package.json')),
    'dist/browser',
  );
  for (const file of ['panel.js', 'panel.css']) {
    try {
      await fs.copyFile(path.join(panelBundle, file), path.join(dist, 'assets', file));
    } catch {
      throw new Error(`${file} of @hal-ai/ui-panel is not built: build it first (\`pnpm build\` does)`);
    }
  }
}

export default defineConfig({
  entry: ['src/index.ts', 'src/cli.ts', 'src/mcp-bin.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  clean: true,
  sourcemap: true,
  target: 'node20',
  // Workspace libraries are bundled from their sources' built output; npm packages stay external.
  banner: { js: '' },
  onSuccess: copyServedAssets,
});
