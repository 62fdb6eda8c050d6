import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from './e2e/panel-browser.test-support.js';

const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(appDir, '../..');

/** The workspace libraries `@hal-ai/hal` depends on, as package folders. */
function workspaceDependencies(): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(appDir, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  return Object.keys(manifest.dependencies)
    .filter((name) => name.startsWith('@hal-ai/'))
    .map((name) => path.join(repoRoot, 'packages', name.slice('@hal-ai/'.length)));
}

/**
 * What packaging copies must be built (CI builds first; this is for direct `vitest` runs): the panel bundle, every
 * workspace library's `dist/` and HAL's own `dist/` with its assets.
 */
export function ensureBuiltForPackaging(): void {
  ensureBuilt();
  // A `dist/` built before the assets were copied into it is not a package's `dist/`.
  if (!fs.existsSync(path.join(appDir, 'dist/assets/panel.js'))) {
    execFileSync(path.join(repoRoot, 'node_modules/.bin/tsup'), [], { cwd: appDir, stdio: 'pipe' });
  }
  for (const library of workspaceDependencies()) {
    if (!fs.existsSync(path.join(library, 'dist/index.js'))) {
      execFileSync(path.join(repoRoot, 'node_modules/.bin/tsup'), [], { cwd: library, stdio: 'pipe' });
    }
  }
}
